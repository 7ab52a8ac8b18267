// profiler/source_frames.h — with_stack's C++ frames: return addresses captured at record time
// (libunwind's cached unw_backtrace, opened at run time; glibc's backtrace() without it), named
// "file(line): function" through libdw (elfutils) when the recorded window is built, each address
// looked up once per process.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tl::profiler {

/// The deepest stack captured; a deeper stack keeps its innermost frames.
inline constexpr int kMaxFrames = 64;

/// Appends the calling thread's return addresses, innermost first, to `out` (at most kMaxFrames);
/// returns how many.
int capture_frames(std::vector<uint64_t>& out);

/// One source-level frame of a return address; an address inside inlined calls gives several.
struct SourceFrame {
  /// Demangled, qualified, without parameters or return type ("tl::models::MyModule::forward");
  /// "" when unknown.
  std::string function;
  /// The line table's file, "dir/../" collapsed, relative to the working directory when inside it
  /// ("models/my_module.cpp"); "" without line tables.
  std::string file;
  int64_t line = 0;
  /// Base name of the ELF file that maps the address ("libc.so.6"); "" when none does.
  std::string module;
  /// The return address relative to the module's load address.
  uint64_t offset = 0;
  /// Folded out of stacks, as PyTorch's Source Location shows Python frames rather than its C++
  /// internals: the function is in namespace tl:: but not tl::models:: (the tutorials' models are
  /// user-style code), in std:: or __gnu_cxx:: (standard library templates), or is the C runtime's
  /// _start; or its file is one of torchless's own sources or headers (core/ ... profiler/, known by
  /// their paths relative to the source root, wherever they were compiled or installed) or under
  /// /usr/include (for inlined calls the line tables name without their namespace); or it has no
  /// line and its module lies in /lib or /usr/lib (libc, libstdc++, libgomp, libdnnl).
  bool library = false;

  /// "models/my_module.cpp(72): tl::models::MyModule::forward"; without a line table
  /// "libc.so.6+0x271ca: __libc_start_call_main" or "prog+0x1234"; "???" outside every module.
  std::string str() const;
};

/// The frames of a captured return address (the call before it is looked up), innermost first;
/// never empty. Thread-safe; each address is looked up once per process.
const std::vector<SourceFrame>& symbolize(uint64_t return_address);

namespace detail {

/// Whether a line table's `absolute` file is a system header or one of torchless's own sources or
/// headers (its path ends with one relative to the source root), wherever the tree was compiled or
/// installed.
bool is_library_file(std::string_view absolute);

}  // namespace detail

}  // namespace tl::profiler
