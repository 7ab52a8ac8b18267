// core/file_writer.cpp — FileWriter: a buffered streambuf over the temporary's descriptor, through
// zlib's deflate for ".gz". The first failure removes the temporary at once and is kept to be rethrown;
// after a commit every write is refused.
#include "core/file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <streambuf>
#include <vector>

#include "core/error.h"

namespace tl {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 16;
constexpr size_t kMaxChunk = size_t{1} << 30;  // one write() or deflate() call; uInt holds it
constexpr int kCreateAttempts = 100;
constexpr size_t kMaxNameInTemp = 200;  // keeps ".<name>.XXXXXX.tmp" under NAME_MAX

// Six characters from mkstemp's alphabet; O_EXCL, not the randomness, guarantees a fresh file.
std::string random_suffix() {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::string s(6, ' ');
  for (char& c : s) c = kChars[rng() % (sizeof kChars - 1)];
  return s;
}

}  // namespace

struct FileWriter::Impl : std::streambuf {
  Impl(std::string path_arg, std::string what_arg);
  ~Impl() override;

  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return drain() ? 0 : -1; }
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override;

  void create_temp();
  bool drain();
  bool put(const char* data, size_t n, int flush);
  bool write_fd(const char* data, size_t n);
  bool fail(const std::string& step, const std::string& detail);
  void commit();
  void check() const {
    if (!error.empty()) throw Error(error);
  }
  // Before a write: the first failure, or a commit, ends the writer.
  void check_writable() const {
    check();
    TL_CHECK(!committed, what, ": ", path, ": the file was already committed; nothing more can be written");
  }

  std::string path, what, dir, temp;
  int fd = -1;
  bool gzip = false, z_open = false, committed = false, in_place = false;
  z_stream z{};
  std::vector<char> buffer, zbuffer;
  uint64_t flushed = 0;  // bytes passed on from the buffer (before compression)
  std::string error;
  std::ostream out{this};
};

FileWriter::Impl::Impl(std::string path_arg, std::string what_arg)
    : path(std::move(path_arg)), what(std::move(what_arg)), buffer(kBufferBytes) {
  const std::filesystem::path p(path);
  TL_CHECK(!path.empty(), what, ": expected a file path, got an empty string");
  TL_CHECK(p.has_filename(), what, ": ", path, ": expected a file path, got a directory");
  dir = p.has_parent_path() ? p.parent_path().string() : ".";
  gzip = path.ends_with(".gz");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A device or pipe (/dev/stdout, a FIFO) is written in place: a rename would replace the node itself.
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail("opening", std::strerror(errno));
    in_place = true;
  } else {
    create_temp();
  }
  setp(buffer.data(), buffer.data() + buffer.size());
  if (gzip) {
    zbuffer.resize(kBufferBytes);
    const int rc = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z_open = rc == Z_OK;
    if (!z_open) fail("starting gzip compression", zError(rc));
  }
  check();
}

FileWriter::Impl::~Impl() {
  if (fd >= 0) ::close(fd);
  if (!temp.empty()) ::unlink(temp.c_str());
  if (z_open) deflateEnd(&z);
}

void FileWriter::Impl::create_temp() {
  const std::string name = std::filesystem::path(path).filename().string().substr(0, kMaxNameInTemp);
  for (int attempt = 0; attempt < kCreateAttempts && fd < 0; ++attempt) {
    const std::string candidate =
        (std::filesystem::path(dir) / ("." + name + "." + random_suffix() + ".tmp")).string();
    fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) temp = candidate;
    else if (errno != EEXIST) break;
  }
  if (fd < 0) fail("creating a temporary file in " + dir, std::strerror(errno));
  check();
  // Replacing a file should not change who may read it (set-id bits are not carried over).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::fchmod(fd, st.st_mode & 0777) != 0)
    fail("copying the permissions of the existing file", std::strerror(errno));
}

bool FileWriter::Impl::fail(const std::string& step, const std::string& detail) {
  if (!error.empty()) return false;
  error = detail::str_cat(what, ": ", path, ": ", step, " failed (", detail, ")");
  if (fd >= 0) ::close(fd);
  fd = -1;
  if (!temp.empty()) ::unlink(temp.c_str());
  temp.clear();
  setp(nullptr, nullptr);  // every later write reaches overflow() and fails
  return false;
}

bool FileWriter::Impl::write_fd(const char* data, size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd, data, std::min(n, kMaxChunk));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return fail("writing", r < 0 ? std::strerror(errno) : "no bytes written");
    data += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Passes `n` bytes on: to the file, or through deflate (`flush` Z_FINISH ends the gzip stream).
bool FileWriter::Impl::put(const char* data, size_t n, int flush) {
  if (!error.empty()) return false;
  if (!gzip) return write_fd(data, n);
  do {
    const size_t chunk = std::min(n, kMaxChunk);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(chunk);
    const int mode = chunk == n ? flush : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(zbuffer.data());
      z.avail_out = static_cast<uInt>(zbuffer.size());
      rc = deflate(&z, mode);
      if (rc == Z_STREAM_ERROR) return fail("compressing", z.msg ? z.msg : zError(rc));
      if (!write_fd(zbuffer.data(), zbuffer.size() - z.avail_out)) return false;
    } while (z.avail_out == 0 || (mode == Z_FINISH && rc != Z_STREAM_END));
    data += chunk;
    n -= chunk;
  } while (n > 0);
  return true;
}

bool FileWriter::Impl::drain() {
  if (!error.empty() || committed) return false;
  const size_t n = static_cast<size_t>(pptr() - pbase());
  setp(buffer.data(), buffer.data() + buffer.size());
  flushed += n;
  return put(buffer.data(), n, Z_NO_FLUSH);
}

FileWriter::Impl::int_type FileWriter::Impl::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize FileWriter::Impl::xsputn(const char* s, std::streamsize n) {
  const auto size = static_cast<size_t>(n);
  if (n <= 0) return 0;
  if (size <= static_cast<size_t>(epptr() - pptr())) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(size));
    return n;
  }
  if (!drain()) return 0;
  if (size < buffer.size()) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(size));
    return n;
  }
  flushed += size;
  return put(s, size, Z_NO_FLUSH) ? n : 0;
}

FileWriter::Impl::pos_type FileWriter::Impl::seekoff(off_type off, std::ios_base::seekdir dir,
                                                     std::ios_base::openmode which) {
  if (off != 0 || dir != std::ios_base::cur || !(which & std::ios_base::out)) return pos_type(off_type(-1));
  return pos_type(static_cast<off_type>(flushed + static_cast<uint64_t>(pptr() - pbase())));
}

void FileWriter::Impl::commit() {
  check();
  TL_CHECK(!committed, what, ": ", path, ": the file was already committed");
  if (!out) fail("writing", "the stream is in a failed state");
  drain();
  if (gzip) put(nullptr, 0, Z_FINISH);
  check();
  setp(nullptr, nullptr);  // a write through stream() from now on reaches overflow(), which refuses it
  if (::fsync(fd) != 0 && !(in_place && errno == EINVAL)) fail("syncing", std::strerror(errno));
  check();
  const int closing = fd;
  fd = -1;
  if (::close(closing) != 0) fail("closing", std::strerror(errno));
  check();
  if (in_place) {
    committed = true;
    return;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("renaming the temporary onto it", std::strerror(errno));
  check();
  temp.clear();
  committed = true;
  // Makes the rename itself durable; a file system that cannot sync a directory says EINVAL.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dir_fd >= 0 && (::fsync(dir_fd) == 0 || errno == EINVAL);
  const int err = errno;
  if (dir_fd >= 0) ::close(dir_fd);
  TL_CHECK(synced, what, ": ", path, ": syncing the directory ", dir, " failed (", std::strerror(err), ")");
}

FileWriter::FileWriter(std::string path, std::string what)
    : impl_(std::make_unique<Impl>(std::move(path), std::move(what))) {}

FileWriter::~FileWriter() = default;

std::ostream& FileWriter::stream() {
  impl_->check_writable();
  return impl_->out;
}

void FileWriter::write(const void* data, size_t bytes) {
  impl_->check_writable();
  if (bytes > 0) impl_->sputn(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  impl_->check();
}

void FileWriter::commit() { impl_->commit(); }

void write_file(const std::string& path, std::string_view content, const std::string& what) {
  FileWriter writer(path, what);
  writer.write(content.data(), content.size());
  writer.commit();
}

}  // namespace tl
