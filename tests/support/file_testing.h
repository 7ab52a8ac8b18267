// tests/support/file_testing.h — for the tests of every file writer and reader: a scratch directory, its
// listing, zlib's gunzip, the system gzip, and a real write failure (RLIMIT_FSIZE makes write() fail
// with EFBIG even as root).
#pragma once

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

namespace tl::testing {

/// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The path of `name` inside the directory, as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// The names in directory `dir`, sorted: a leftover temporary shows up here.
std::vector<std::string> dir_entries(const std::filesystem::path& dir);
/// The whole file at `path` (empty when it cannot be read).
std::string read_file(const std::filesystem::path& path);
/// Writes `bytes` to `path`, replacing it (plain ofstream: test setup, not the code under test).
void write_file_bytes(const std::filesystem::path& path, const std::string& bytes);
/// `compressed` (one gzip member) inflated by zlib; throws std::runtime_error unless it is complete
/// and valid.
std::string gunzip_zlib(const std::string& compressed);
/// Runs the system gzip on `input` (written to `name` in `dir`) with `flags` and returns the compressed
/// bytes; empty when the command is unavailable (the caller then skips with a message).
std::string system_gzip(const ScratchDir& dir, const std::string& input, const std::string& flags,
                        const std::string& name = "input.bin");

/// While alive, no file may grow past `bytes`: a write() beyond it fails with EFBIG, as on a full
/// disk, and SIGXFSZ is ignored so the process lives. Both are restored on destruction.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes);
  ~FileSizeLimit();
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_limit_{};
  struct sigaction saved_action_{};
};

}  // namespace tl::testing
