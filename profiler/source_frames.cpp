// profiler/source_frames.cpp — symbolization through libdw: the process's modules are reported once
// (again when an address falls outside all of them, for libraries loaded later); DWARF scopes expand
// inlined calls into frames of their own, so a header function inlined into user code never takes
// the user's line. Modules in system directories are never searched for line tables (they are
// folded anyway, and looking for libc's separate debug info costs ~0.1 s).
#include "profiler/source_frames.h"

#include "profiler/library_files.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tl::profiler {
namespace {

std::string demangle(const char* name) {
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && plain ? plain : name;
  std::free(plain);
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "tl::Tensor tl::models::f<float>(int) const" -> "tl::models::f<float>": the parameter list is the
// first '(' outside <>, {} and [] that is neither "(anonymous namespace)" nor an operator's own
// symbol; the return type ends at the last space before it at the same depth.
std::string bare_name(const std::string& s) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  static constexpr std::string_view kOperator = "operator";
  int depth = 0;
  size_t last_space = std::string::npos;
  size_t i = 0;
  while (i < s.size()) {
    const std::string_view rest = std::string_view(s).substr(i);
    if (starts_with(rest, kAnonymous)) {
      i += kAnonymous.size();
      continue;
    }
    if (starts_with(rest, kOperator)) {
      i += kOperator.size();
      if (starts_with(std::string_view(s).substr(i), "()")) i += 2;
      while (i < s.size() && std::string_view("<>=!+-*/%&|^~[], ").find(s[i]) != std::string_view::npos) ++i;
      continue;
    }
    const char c = s[i];
    if (c == '<' || c == '{' || c == '[') ++depth;
    if (c == '>' || c == '}' || c == ']') --depth;
    if (depth == 0 && c == ' ') last_space = i;
    if (depth == 0 && c == '(') break;
    ++i;
  }
  const size_t begin = last_space == std::string::npos ? 0 : last_space + 1;
  return s.substr(begin, i - begin);
}

// `file` as the line table names it, made absolute against the compilation directory, "dir/../"
// collapsed.
std::filesystem::path absolute_path(const char* file, const char* comp_dir) {
  std::filesystem::path path(file);
  if (path.is_relative() && comp_dir) path = std::filesystem::path(comp_dir) / path;
  return path.lexically_normal();
}

// `path` relative to the working directory when inside it.
std::string display_path(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec || !path.is_absolute()) return path.string();
  const fs::path relative = path.lexically_relative(cwd);
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

bool is_system_module(std::string_view path) {
  for (std::string_view dir : {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"})
    if (starts_with(path, dir)) return true;
  return false;
}

bool is_library_function(std::string_view f) {
  if (starts_with(f, "tl::")) return !starts_with(f, "tl::models::");
  return starts_with(f, "std::") || starts_with(f, "__gnu_cxx::") || f == "_start";
}

void set_file(SourceFrame& frame, const std::filesystem::path& absolute) {
  frame.file = display_path(absolute);
  frame.library = detail::is_library_file(absolute.string());
}

// The namespaces and classes around a function's declaration, outermost first ("tl::models::").
std::string enclosing_scopes(Dwarf_Die* die) {
  Dwarf_Die origin = *die;
  Dwarf_Attribute attr;
  for (int hops = 0; hops < 4; ++hops) {
    Dwarf_Die next;
    if (!dwarf_formref_die(dwarf_attr(&origin, DW_AT_abstract_origin, &attr), &next) &&
        !dwarf_formref_die(dwarf_attr(&origin, DW_AT_specification, &attr), &next))
      break;
    origin = next;
  }
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes_die(&origin, &scopes);
  std::string prefix;
  for (int i = n - 1; i > 0; --i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type) continue;
    const char* name = dwarf_diename(&scopes[i]);
    prefix += std::string(name ? name : "(anonymous namespace)") + "::";
  }
  std::free(scopes);
  return prefix;
}

// The function's demangled linkage name; a function without one (GCC gives none to functions in an
// anonymous namespace) gets its name qualified by its enclosing scopes.
std::string die_function(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name})
    if (const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, name, &attr)))
      return bare_name(demangle(linkage));
  const char* plain = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return plain ? enclosing_scopes(die) + plain : "";
}

class Symbolizer {
 public:
  Symbolizer() : callbacks_{dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr, &debuginfo_path_} {}
  ~Symbolizer() {
    if (dwfl_) dwfl_end(dwfl_);
  }

  const std::vector<SourceFrame>& frames(uint64_t return_address) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(return_address);
    if (it == cache_.end()) it = cache_.emplace(return_address, look_up(return_address)).first;
    return it->second;
  }

 private:
  void report() {
    if (!dwfl_) dwfl_ = dwfl_begin(&callbacks_);
    if (!dwfl_) return;
    dwfl_report_begin_add(dwfl_);
    dwfl_linux_proc_report(dwfl_, getpid());
    dwfl_report_end(dwfl_, nullptr, nullptr);
  }

  Dwfl_Module* module_of(Dwarf_Addr pc) {
    if (!dwfl_) report();
    Dwfl_Module* module = dwfl_ ? dwfl_addrmodule(dwfl_, pc) : nullptr;
    if (!module && dwfl_) {
      report();
      module = dwfl_addrmodule(dwfl_, pc);
    }
    return module;
  }

  std::vector<SourceFrame> look_up(uint64_t return_address) {
    // The return address follows the call; the call itself is the byte before it.
    const Dwarf_Addr pc = return_address - 1;
    SourceFrame base;
    Dwfl_Module* module = module_of(pc);
    if (!module) return {base};
    Dwarf_Addr start = 0;
    const char* path = dwfl_module_info(module, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
    base.module = path ? std::filesystem::path(path).filename().string() : "";
    base.offset = return_address - start;
    GElf_Off symbol_offset = 0;
    GElf_Sym symbol;
    if (const char* name = dwfl_module_addrinfo(module, pc, &symbol_offset, &symbol, nullptr, nullptr, nullptr))
      base.function = bare_name(demangle(name));
    std::vector<SourceFrame> out;
    if (!(path && is_system_module(path))) out = from_dwarf(module, pc, base);
    if (out.empty()) out.push_back(base);
    const bool system = path && is_system_module(path);
    for (SourceFrame& f : out) f.library = f.library || is_library_function(f.function) || (f.file.empty() && system);
    return out;
  }

  // The inlined calls at `pc`, innermost first, then the function that holds them; empty without
  // line tables. dwarf_getscopes follows an inlined function into its definition's scopes, so the
  // callers come from dwarf_getscopes_die on the innermost scope instead, as eu-addr2line -i does.
  // The compile unit holding `pc`. libdw finds it through .debug_aranges, which clang does not write
  // unless asked (-gdwarf-aranges): without them, the units are searched one by one.
  static Dwarf_Die* unit_of(Dwfl_Module* module, Dwarf_Addr pc, Dwarf_Die* storage, Dwarf_Addr* bias) {
    if (Dwarf_Die* cu = dwfl_module_addrdie(module, pc, bias)) return cu;
    Dwarf* dwarf = dwfl_module_getdwarf(module, bias);
    if (dwarf == nullptr) return nullptr;
    Dwarf_Off offset = 0, next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      if (dwarf_offdie(dwarf, offset + header_size, storage) != nullptr && dwarf_haspc(storage, pc - *bias) == 1)
        return storage;
      offset = next;
    }
    return nullptr;
  }

  static std::vector<SourceFrame> from_dwarf(Dwfl_Module* module, Dwarf_Addr pc, const SourceFrame& base) {
    Dwarf_Addr bias = 0;
    Dwarf_Die unit;
    Dwarf_Die* cu = unit_of(module, pc, &unit, &bias);
    Dwarf_Line* line = cu ? dwarf_getsrc_die(cu, pc - bias) : nullptr;
    int line_number = 0;
    const char* file = line && dwarf_lineno(line, &line_number) == 0 ? dwarf_linesrc(line, nullptr, nullptr) : nullptr;
    if (!file || line_number <= 0) return {};
    Dwarf_Attribute attr;
    const char* comp_dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : nullptr;
    SourceFrame location = base;
    set_file(location, absolute_path(file, comp_dir));
    location.line = line_number;
    Dwarf_Die* scopes = nullptr;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    if (n > 0) {
      Dwarf_Die innermost = scopes[0];
      std::free(scopes);
      scopes = nullptr;
      n = dwarf_getscopes_die(&innermost, &scopes);
    }
    Dwarf_Files* files = nullptr;
    size_t file_count = 0;
    if (cu && dwarf_getsrcfiles(cu, &files, &file_count) != 0) files = nullptr;
    std::vector<SourceFrame> out;
    for (int i = 0; i < n; ++i) {
      Dwarf_Die* scope = &scopes[i];
      const int tag = dwarf_tag(scope);
      if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
      SourceFrame frame = location;
      // The holding function is the one the symbol table names, qualified even where -g1 leaves
      // out linkage names (functions in an anonymous namespace).
      const std::string name = tag == DW_TAG_subprogram && !base.function.empty() ? base.function : die_function(scope);
      if (!name.empty()) frame.function = name;
      out.push_back(frame);
      if (tag == DW_TAG_subprogram) break;
      // The caller's location is this inlined call's call site.
      Dwarf_Word call_file = 0, call_line = 0;
      if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &call_line) == 0) location.line = call_line;
      if (files && dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &call_file) == 0)
        if (const char* caller = dwarf_filesrc(files, call_file, nullptr, nullptr))
          set_file(location, absolute_path(caller, comp_dir));
    }
    std::free(scopes);
    if (out.empty()) out.push_back(location);
    return out;
  }

  std::mutex mutex_;
  char* debuginfo_path_ = nullptr;
  Dwfl_Callbacks callbacks_;
  Dwfl* dwfl_ = nullptr;
  std::unordered_map<uint64_t, std::vector<SourceFrame>> cache_;
};

}  // namespace

namespace {

using Backtrace = int (*)(void**, int);

// libunwind's unw_backtrace caches each return address's frame layout, so a stack seen before (the
// same call sites every forward) costs 20-40 ns a frame; glibc's backtrace() re-reads the unwind
// tables each time, 6.5x slower on ResNet18's op stacks (28 frames on average). libunwind is opened
// privately (RTLD_LOCAL) rather than linked: it also defines _Unwind_RaiseException, which would
// take over every C++ throw in the process. Without it, backtrace() serves.
Backtrace backtrace_function() {
  static const Backtrace function = [] {
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    void* symbol = library ? dlsym(library, "unw_backtrace") : nullptr;
    return symbol ? reinterpret_cast<Backtrace>(symbol) : &backtrace;
  }();
  return function;
}

}  // namespace

namespace detail {

// For inlined calls whose name the line tables leave unqualified (GCC's -g1 for functions in an
// anonymous namespace, clang's -gline-tables-only for all), a frame is folded by its file: the system's headers (libstdc++, glibc)
// and torchless's own sources and headers, known by their paths relative to the source root
// (profiler/library_files.h) rather than by the directory they were compiled in, which a moved
// tree, a shared compiler cache or an installed include/torchless/ changes.
bool is_library_file(std::string_view absolute) {
  static const std::unordered_set<std::string_view> library(std::begin(kLibraryFiles),
                                                            std::end(kLibraryFiles));
  if (starts_with(absolute, "/usr/include/")) return true;
  for (size_t slash = absolute.find('/'); slash != std::string_view::npos; slash = absolute.find('/', slash + 1))
    if (library.count(absolute.substr(slash + 1))) return true;
  return false;
}

}  // namespace detail

int capture_frames(std::vector<uint64_t>& out) {
  void* frames[kMaxFrames];
  const int n = std::max(0, backtrace_function()(frames, kMaxFrames));
  for (int i = 0; i < n; ++i) out.push_back(reinterpret_cast<uint64_t>(frames[i]));
  return n;
}

std::string SourceFrame::str() const {
  if (!file.empty()) return file + "(" + std::to_string(line) + "): " + function;
  if (module.empty()) return "???";
  char offset_text[32];
  std::snprintf(offset_text, sizeof offset_text, "+0x%llx", static_cast<unsigned long long>(offset));
  return module + offset_text + (function.empty() ? "" : ": " + function);
}

const std::vector<SourceFrame>& symbolize(uint64_t return_address) {
  static Symbolizer symbolizer;
  return symbolizer.frames(return_address);
}

}  // namespace tl::profiler
