// tests/core/test_file_writer.cpp — FileWriter: the rename makes the new file appear whole, and every
// failure (real EFBIG from RLIMIT_FSIZE, a missing directory, a rename onto a directory) leaves the
// old file byte-identical with no temporary behind.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/file_writer.h"
#include "tests/support/file_testing.h"

namespace tl {
namespace {

using testing::dir_entries;
using testing::FileSizeLimit;
using testing::gunzip_zlib;
using testing::read_file;
using testing::ScratchDir;
using testing::write_file_bytes;
using Names = std::vector<std::string>;

std::string random_bytes(size_t n) {
  std::mt19937 rng(7);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST_CASE("file_writer: commit replaces the file and leaves nothing else in the directory") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  write_file_bytes(path, "old content");
  FileWriter w(path, "test");
  w.stream() << "text " << 42 << '\n';
  const std::string bytes = random_bytes(200'000);  // larger than the buffer: written straight through
  w.write(bytes.data(), bytes.size());
  CHECK(w.stream().tellp() == 8 + 200'000);
  CHECK(read_file(path) == "old content");  // nothing is visible before commit
  w.commit();
  CHECK(read_file(path) == "text 42\n" + bytes);
  CHECK(dir_entries(dir.path()) == Names{"out.txt"});
  CHECK_THROWS_WITH_AS(w.commit(), ("test: " + path + ": the file was already committed").c_str(), Error);
}

TEST_CASE("file_writer: writing after commit is refused, not dropped, and the file stays as committed") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  FileWriter w(path, "test");
  std::ostream& stream = w.stream();
  stream << "kept";
  w.commit();
  const std::string refused = "test: " + path + ": the file was already committed; nothing more can be written";
  CHECK_THROWS_WITH_AS(w.write("more", 4), refused.c_str(), Error);
  CHECK_THROWS_WITH_AS(w.write("", 0), refused.c_str(), Error);
  CHECK_THROWS_WITH_AS(w.stream(), refused.c_str(), Error);
  // A stream obtained before the commit fails instead of buffering bytes that never reach the file.
  stream << "more";
  stream.flush();
  CHECK(stream.bad());
  CHECK(read_file(path) == "kept");
  CHECK_THROWS_WITH_AS(w.commit(), ("test: " + path + ": the file was already committed").c_str(), Error);
  CHECK(dir_entries(dir.path()) == Names{"out.txt"});
}

TEST_CASE("file_writer: a writer destroyed without commit removes its temporary") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  write_file_bytes(path, "old content");
  {
    FileWriter w(path, "test");
    w.stream() << "half written";
    w.stream().flush();
    const Names during = dir_entries(dir.path());
    REQUIRE(during.size() == 2);
    CHECK(during[0].starts_with(".out.txt."));
    CHECK(during[0].ends_with(".tmp"));
  }
  CHECK(read_file(path) == "old content");
  CHECK(dir_entries(dir.path()) == Names{"out.txt"});
}

TEST_CASE("file_writer: a write that fails with EFBIG leaves the old file and no temporary") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  const std::string old = random_bytes(10'000);  // larger than the limit: the limit binds only new writes
  write_file_bytes(path, old);
  const std::string gz = dir.file("out.txt.gz");
  write_file_bytes(gz, old);
  const std::string big = random_bytes(100'000);
  const std::string efbig = "test: " + path + ": writing failed (File too large)";
  {
    FileSizeLimit limit(4096);
    FileWriter text(path, "test");
    text.stream() << big;  // buffered: the failure is reported by commit
    CHECK_THROWS_WITH_AS(text.commit(), efbig.c_str(), Error);
    CHECK_THROWS_WITH_AS(text.commit(), efbig.c_str(), Error);  // and again, not "already committed"
    FileWriter bytes(path, "test");
    CHECK_THROWS_WITH_AS(bytes.write(big.data(), big.size()), efbig.c_str(), Error);
    CHECK_THROWS_WITH_AS(write_file(path, big, "test"), efbig.c_str(), Error);
    CHECK_THROWS_WITH_AS(write_file(gz, big, "test"),
                         ("test: " + gz + ": writing failed (File too large)").c_str(), Error);
  }
  CHECK(read_file(path) == old);
  CHECK(read_file(gz) == old);
  CHECK(dir_entries(dir.path()) == Names{"out.txt", "out.txt.gz"});
}

TEST_CASE("file_writer: a missing directory, a directory as target or a directory path are errors") {
  ScratchDir dir;
  const std::string missing = dir.file("no_such_dir/x.txt");
  CHECK_THROWS_WITH_AS(write_file(missing, "x", "test"),
                       ("test: " + missing + ": creating a temporary file in " + dir.file("no_such_dir") +
                        " failed (No such file or directory)")
                           .c_str(),
                       Error);
  std::filesystem::create_directory(dir.path() / "sub");
  const std::string sub = dir.file("sub");
  CHECK_THROWS_WITH_AS(write_file(sub, "x", "test"),
                       ("test: " + sub + ": renaming the temporary onto it failed (Is a directory)").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(write_file(sub + "/", "x", "test"),
                       ("test: " + sub + "/: expected a file path, got a directory").c_str(), Error);
  CHECK(dir_entries(dir.path()) == Names{"sub"});
  CHECK(std::filesystem::is_empty(dir.path() / "sub"));
}

TEST_CASE("file_writer: files of the user's named like temporaries are never touched") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  write_file_bytes(path + ".tmp", "mine");
  write_file_bytes(dir.file(".out.txt.tmp"), "mine too");
  write_file(path, "new", "test");
  CHECK(read_file(path) == "new");
  CHECK(read_file(path + ".tmp") == "mine");
  CHECK(read_file(dir.file(".out.txt.tmp")) == "mine too");
  CHECK(dir_entries(dir.path()) == Names{".out.txt.tmp", "out.txt", "out.txt.tmp"});
}

TEST_CASE("file_writer: replacing a file keeps its permission bits; a new file gets the umask's") {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  write_file_bytes(path, "old");
  ::chmod(path.c_str(), 0640);
  write_file(path, "new", "test");
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  const std::string fresh = dir.file("fresh.txt");
  write_file(fresh, "new", "test");
  REQUIRE(::stat(fresh.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == (0666 & ~mask));
  ::chmod(path.c_str(), 04755);  // a set-user-id bit is not carried over to the new content
  write_file(path, "newer", "test");
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
}

TEST_CASE("file_writer: a pipe or device is written in place, never replaced") {
  ScratchDir dir;
  const std::string fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  write_file(fifo, "through the pipe", "test");
  reader.join();
  CHECK(received == "through the pipe");
  struct stat st;
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // A symlink to a character device (as /dev/stdout is): the device stays, the bytes go to it.
  const std::string link = dir.file("null");
  std::filesystem::create_symlink("/dev/null", link);
  write_file(link, "discarded", "test");
  CHECK(std::filesystem::is_symlink(link));
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(dir_entries(dir.path()) == Names{"null", "pipe"});
  CHECK_THROWS_WITH_AS(write_file("", "x", "test"), "test: expected a file path, got an empty string", Error);
}

TEST_CASE("file_writer: a .gz target is gzip that zlib inflates back to the text") {
  ScratchDir dir;
  std::string text;
  for (int i = 0; i < 20'000; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string path = dir.file("out.txt.gz");
  FileWriter w(path, "test");
  w.stream() << text;
  CHECK(w.stream().tellp() == static_cast<std::streamoff>(text.size()));  // counts text, not gzip bytes
  w.commit();
  const std::string gz = read_file(path);
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  CHECK(gz.size() < text.size() / 2);
  CHECK(gunzip_zlib(gz) == text);
  write_file(dir.file("empty.gz"), "", "test");
  CHECK(gunzip_zlib(read_file(dir.file("empty.gz"))).empty());
}

TEST_CASE("file_writer: concurrent writers to one path all succeed and the last rename wins whole") {
  ScratchDir dir;
  const std::string path = dir.file("out.bin");
  std::vector<std::string> contents;
  for (int t = 0; t < 4; ++t) contents.push_back(std::string(100'000 + t, static_cast<char>('a' + t)));
  std::vector<std::thread> threads;
  std::vector<int> failures(contents.size(), 0);
  for (size_t t = 0; t < contents.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        try {
          write_file(path, contents[t], "test");
        } catch (const Error&) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == std::vector<int>(contents.size(), 0));
  const std::string result = read_file(path);
  CHECK(std::find(contents.begin(), contents.end(), result) != contents.end());
  CHECK(dir_entries(dir.path()) == Names{"out.bin"});
}

}  // namespace
}  // namespace tl
