// core/file_writer.h — the one way torchless writes a user's file: into a unique temporary beside it,
// then fsync and rename. After any failure the old file is intact and no temporary is left.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace tl {

/// Replaces the file at `path` atomically. Bytes go to a new temporary file in the same directory
/// (".<name>.<random>.tmp", created with O_EXCL, so it never belongs to the user); commit() flushes it,
/// fsyncs it, renames it over `path` and fsyncs the directory. An existing file's permission bits are
/// kept (set-id bits are not); a symlink to a regular file is replaced, not followed. An existing
/// device or pipe at `path` (or behind a symlink there, as /dev/stdout) is written in place instead.
/// A `path` ending in ".gz" is gzip-compressed (zlib) on the way. Destroying a writer that was not
/// committed removes the temporary and leaves `path` as it was.
///
/// Every failure (create, write, compress, flush, fsync, close, rename) removes the temporary and
/// throws tl::Error "<what>: <path>: <step> failed (<errno text>)"; later calls throw the same error.
/// Only a failed fsync of the directory comes after the rename: `path` then holds the new content.
/// Not thread-safe; concurrent writers to one path each use their own temporary and the last commit
/// wins.
class FileWriter {
 public:
  /// Creates the temporary; `what` (e.g. "export_chrome_trace") starts every error message.
  FileWriter(std::string path, std::string what);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  /// For text writers. A failed write sets badbit and is reported by commit(); tellp() counts the
  /// bytes written so far (before compression). Throws tl::Error after commit(); a write through a
  /// stream obtained before then sets badbit.
  std::ostream& stream();
  /// Appends `bytes` bytes from `data`; throws at once on failure, and after commit() (the bytes would
  /// never reach the file).
  void write(const void* data, size_t bytes);
  /// Moves the written content to `path`; the writer is finished afterwards: a second commit() and
  /// every write throw tl::Error.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes `content` to `path` through a FileWriter and commits it.
void write_file(const std::string& path, std::string_view content, const std::string& what);

}  // namespace tl
