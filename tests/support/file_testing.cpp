// tests/support/file_testing.cpp — scratch directories, zlib's and the system's gzip, the RLIMIT_FSIZE
// guard. The guard throws (failing the test) when the limit cannot be set: no test passes without a real failure.
#include "tests/support/file_testing.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tl::testing {

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("tl_files_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> dir_entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string system_gzip(const ScratchDir& dir, const std::string& input, const std::string& flags,
                        const std::string& name) {
  if (std::system("command -v gzip > /dev/null 2>&1") != 0) return {};
  const std::filesystem::path in = dir.path() / name;
  const std::filesystem::path out = dir.path() / (name + ".gz");
  write_file_bytes(in, input);
  const std::string cmd = "gzip -c " + flags + " '" + in.string() + "' > '" + out.string() + "'";
  if (std::system(cmd.c_str()) != 0) return {};
  return read_file(out);
}

std::string gunzip_zlib(const std::string& compressed) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("gunzip_zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char chunk[1 << 14];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw std::runtime_error("gunzip_zlib: not a complete gzip stream (zlib code " + std::to_string(rc) + ")");
  return out;
}

FileSizeLimit::FileSizeLimit(rlim_t bytes) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  if (::getrlimit(RLIMIT_FSIZE, &saved_limit_) != 0 || ::sigaction(SIGXFSZ, &ignore, &saved_action_) != 0)
    throw std::runtime_error("FileSizeLimit: cannot save RLIMIT_FSIZE or the SIGXFSZ action");
  rlimit limit = saved_limit_;
  limit.rlim_cur = bytes;
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) {
    ::sigaction(SIGXFSZ, &saved_action_, nullptr);
    throw std::runtime_error("FileSizeLimit: cannot set RLIMIT_FSIZE");
  }
}

FileSizeLimit::~FileSizeLimit() {
  ::setrlimit(RLIMIT_FSIZE, &saved_limit_);
  ::sigaction(SIGXFSZ, &saved_action_, nullptr);
}

}  // namespace tl::testing
