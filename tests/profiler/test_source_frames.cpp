// tests/profiler/test_source_frames.cpp — with_stack's C++ frames: a known function's file and line
// (computed with __LINE__ here), inlined calls as frames of their own, library frames folded, module
// and RecordFunction scopes placed inside the frame that opened them, grouping, folded stacks, and
// the fallbacks for addresses without line tables, and the Chrome trace's "Call stack".
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/module.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler/source_frames.h"
#include "profiler/stacks.h"
#include "profiler_test_util.h"

// User code lives outside namespace tl (tl:: frames other than tl::models:: are library frames).
namespace stack_test {

constexpr const char* kFile = "tests/profiler/test_source_frames.cpp";

[[gnu::always_inline]] inline void capture_inlined(std::vector<uint64_t>& out, int& line) {
  line = __LINE__ + 1;
  tl::profiler::capture_frames(out);
}

[[gnu::noinline]] void capture_outer(std::vector<uint64_t>& out, int& inner_line, int& outer_line) {
  outer_line = __LINE__ + 1;
  capture_inlined(out, inner_line);
}

[[gnu::noinline]] void add_twice(const tl::Tensor& x, tl::Tensor& a, tl::Tensor& b, int& line_a, int& line_b) {
  line_a = __LINE__ + 1;
  a = x + 1;
  line_b = __LINE__ + 1;
  b = x + 1;
}

struct Tiny : tl::nn::Module {
  int op_line = 0;
  tl::Tensor forward(const tl::Tensor& x) override {
    tl::profiler::RecordFunction scope("TINY BODY");
    op_line = __LINE__ + 1;
    tl::Tensor y = x * 2;
    return y;
  }
  std::string type_name() const override { return "Tiny"; }
};

// A scope opened in forward around a call that is inlined into forward: the scope is inside forward
// and outside the inlined call, though both are one machine frame.
struct Inlining : tl::nn::Module {
  int helper_line = 0, call_line = 0;
  [[gnu::always_inline]] inline void triple(const tl::Tensor& x, tl::Tensor& y) {
    helper_line = __LINE__ + 1;
    y = x * 3;
  }
  tl::Tensor forward(const tl::Tensor& x) override {
    tl::profiler::RecordFunction scope("OUTER");
    tl::Tensor y;
    call_line = __LINE__ + 1;
    triple(x, y);
    return y;
  }
  std::string type_name() const override { return "Inlining"; }
};

[[gnu::noinline]] void call_tiny(Tiny& tiny, const tl::Tensor& x, tl::Tensor& out, int& line) {
  line = __LINE__ + 1;
  out = tiny(x);
}

}  // namespace stack_test

namespace tl::profiler {
namespace {

using testing::find_all;
using testing::find_one;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "tests/profiler/test_source_frames.cpp(12): stack_test::add_twice"; the file is relative to the
// working directory when the tests run from the source root, absolute otherwise.
std::string frame_text(int line, const std::string& function) {
  return std::string(stack_test::kFile) + "(" + std::to_string(line) + "): " + function;
}

// An inlined call's name may come without its namespace (clang's -gline-tables-only in the sanitizer
// build keeps no more), so those are checked by their last component.
void check_frame(const std::string& entry, int line, const std::string& function) {
  const std::string location = std::string(stack_test::kFile) + "(" + std::to_string(line) + "): ";
  INFO("entry: ", entry, ", expected: ", location, function);
  CHECK(entry.find(location) != std::string::npos);
  CHECK(ends_with(entry, function));
}

std::vector<std::string> all_user_frames(const std::vector<uint64_t>& addresses) {
  std::vector<std::string> out;
  for (uint64_t a : addresses)
    for (const SourceFrame& f : symbolize(a))
      if (!f.library) out.push_back(f.str());
  return out;
}

TEST_CASE("source frames: an inlined call is a frame of its own, at its line, inside its caller's call line") {
  std::vector<uint64_t> addresses;
  int inner = 0, outer = 0;
  stack_test::capture_outer(addresses, inner, outer);
  REQUIRE(addresses.size() >= 3);
  const std::vector<std::string> frames = all_user_frames(addresses);
  REQUIRE(frames.size() >= 2);
  check_frame(frames[0], inner, "capture_inlined");
  check_frame(frames[1], outer, "stack_test::capture_outer");
  // capture_frames itself and the test case (in namespace tl) are library frames.
  CHECK(symbolize(addresses[0]).front().library);
}

TEST_CASE("source frames: addresses without line tables fall back to module+offset, or ???") {
  const std::vector<SourceFrame>& nowhere = symbolize(0x10);
  REQUIRE(nowhere.size() == 1);
  CHECK(nowhere[0].str() == "???");
  CHECK_FALSE(nowhere[0].library);

  // libc has no line tables here: its frames are named by module, offset and symbol, and folded.
  // (getpid: its address is libc's own in the sanitizer build too, where an intercepted function such as
  // malloc resolves to the runtime's wrapper.)
  const std::vector<SourceFrame>& libc = symbolize(reinterpret_cast<uint64_t>(&::getpid) + 1);
  REQUIRE(libc.size() == 1);
  CHECK(libc[0].module.rfind("libc.so", 0) == 0);
  CHECK(libc[0].file.empty());
  CHECK(libc[0].str().rfind(libc[0].module + "+0x", 0) == 0);
  CHECK(libc[0].function.find("getpid") != std::string::npos);
  CHECK(libc[0].library);

  // The library itself is built without line tables in a release build: a tl:: frame still gets
  // its name from the symbol table, and is folded either way.
  const std::vector<SourceFrame>& own = symbolize(reinterpret_cast<uint64_t>(&capture_frames) + 1);
  CHECK(own.back().function == "tl::profiler::capture_frames");
  CHECK(own.back().library);
  if (own.back().file.empty()) CHECK(own.back().str().find("+0x") != std::string::npos);
}

TEST_CASE("source frames: library files are known by their place in the tree, not by where it was compiled") {
  using detail::is_library_file;
  // A checkout or build cache elsewhere: the line tables name the directory the objects were compiled in.
  CHECK(is_library_file("/somewhere/else/core/dispatch.cpp"));
  CHECK(is_library_file("/somewhere/else/core/hook_stack.h"));
  CHECK(is_library_file("/somewhere/else/fx/passes/fuse_conv_bn.cpp"));
  CHECK(is_library_file("/somewhere/else/build-san/core/op_methods.h"));  // generated in the build tree
  CHECK(is_library_file("/opt/tl/include/torchless/nn/module.h"));       // installed
  CHECK(is_library_file("/usr/include/c++/12/bits/stl_vector.h"));
  // The user's code, the tutorials' models and the tests are never folded, whatever their folders.
  CHECK_FALSE(is_library_file("/somewhere/else/tests/profiler/test_source_frames.cpp"));
  CHECK_FALSE(is_library_file("/somewhere/else/tests/core/test_tensor.cpp"));
  CHECK_FALSE(is_library_file("/somewhere/else/models/my_module.cpp"));
  CHECK_FALSE(is_library_file("/home/user/project/core/main.cpp"));
  CHECK_FALSE(is_library_file("core/dispatch.cpp"));  // a relative path names no tree
}

// Profiles one call of a Tiny module from stack_test::call_tiny; returns the line of that call.
int profile_tiny(Profile& prof, stack_test::Tiny& tiny) {
  Tensor out;
  int call_line = 0;
  auto running = prof.start();
  stack_test::call_tiny(tiny, ones({4}), out, call_line);
  return call_line;
}

TEST_CASE("source frames: an op's stack names the user's line; scopes sit inside the frame that opened them") {
  auto tiny = std::make_shared<stack_test::Tiny>();
  Profile prof({.with_stack = true});
  const int call_line = profile_tiny(prof, *tiny);
  const EventList& events = prof.events();
  const std::vector<std::string>& stack = events.stack(find_one(events, "aten::mul"));
  REQUIRE(stack.size() >= 4);
  CHECK(stack[0] == "TINY BODY");
  check_frame(stack[1], tiny->op_line, "stack_test::Tiny::forward");
  CHECK(stack[2] == "nn.Module: Tiny_0");
  check_frame(stack[3], call_line, "stack_test::call_tiny");
  // The scope's own row: opened in forward, which was called from call_tiny.
  const std::vector<std::string>& scope = events.stack(find_one(events, "TINY BODY"));
  REQUIRE(scope.size() >= 3);
  CHECK(ends_with(scope[0], ": stack_test::Tiny::forward"));
  CHECK(scope[1] == "nn.Module: Tiny_0");
  check_frame(scope[2], call_line, "stack_test::call_tiny");
}

// The "args" of each complete event named `name` in the Chrome trace `prof` exports.
std::vector<nlohmann::json> trace_args(const Profile& prof, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("source_frames_" + std::to_string(::getpid()) + ".json")).string();
  prof.export_chrome_trace(path);
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["name"] == name) out.push_back(e["args"]);
  return out;
}

TEST_CASE("source frames: the Chrome trace carries each event's stack as Kineto's \"Call stack\"") {
  auto tiny = std::make_shared<stack_test::Tiny>();
  Profile prof({.with_stack = true});
  profile_tiny(prof, *tiny);
  const std::vector<std::string>& stack = prof.events().stack(find_one(prof.events(), "aten::mul"));
  REQUIRE(stack.size() >= 4);
  std::string joined = stack[0];
  for (size_t i = 1; i < stack.size(); ++i) joined += ";" + stack[i];
  const std::vector<nlohmann::json> muls = trace_args(prof, "aten::mul");
  REQUIRE(muls.size() == 1);
  CHECK(muls[0]["Call stack"] == joined);
  CHECK(muls[0]["Call stack"].get<std::string>().find(frame_text(tiny->op_line, "stack_test::Tiny::forward")) !=
        std::string::npos);

  Profile plain;
  profile_tiny(plain, *tiny);
  const std::vector<nlohmann::json> plain_muls = trace_args(plain, "aten::mul");
  REQUIRE(plain_muls.size() == 1);
  CHECK_FALSE(plain_muls[0].contains("Call stack"));
}

TEST_CASE("source frames: a scope around an inlined call sits between the inlined frame and its caller") {
  auto inlining = std::make_shared<stack_test::Inlining>();
  Tensor out;
  Profile prof({.with_stack = true});
  {
    auto running = prof.start();
    out = (*inlining)(ones({4}));
  }
  const EventList& events = prof.events();
  const std::vector<std::string>& stack = events.stack(find_one(events, "aten::mul"));
  REQUIRE(stack.size() >= 4);
  check_frame(stack[0], inlining->helper_line, "triple");
  CHECK(stack[1] == "OUTER");
  check_frame(stack[2], inlining->call_line, "stack_test::Inlining::forward");
  CHECK(stack[3] == "nn.Module: Inlining_0");
}

TEST_CASE("source frames: group_by_stack_n tells two call sites apart; the table and folded stacks show them") {
  const Tensor x = ones({1 << 20});
  Tensor a, b;
  int line_a = 0, line_b = 0;
  Profile prof({.with_stack = true});
  {
    auto running = prof.start();
    stack_test::add_twice(x, a, b, line_a, line_b);
  }
  CHECK(prof.key_averages().at("aten::add").count == 2);
  const KeyAverages by_line = prof.key_averages({.group_by_stack_n = 1});
  std::vector<const FunctionEventAvg*> adds;
  for (const FunctionEventAvg& row : by_line)
    if (row.key == "aten::add") adds.push_back(&row);
  REQUIRE(adds.size() == 2);
  CHECK(adds[0]->count == 1);
  REQUIRE(adds[0]->stack.size() == 1);
  REQUIRE(adds[1]->stack.size() == 1);
  check_frame(adds[0]->stack[0], line_a, "stack_test::add_twice");
  check_frame(adds[1]->stack[0], line_b, "stack_test::add_twice");
  const std::string table = by_line.table();
  CHECK(table.find("Source Location") != std::string::npos);
  CHECK(table.find(frame_text(line_a, "stack_test::add_twice")) != std::string::npos);

  std::ostringstream folded;
  write_stacks(prof.events(), folded);
  for (int line : {line_a, line_b}) {
    std::string entry = frame_text(line, "stack_test::add_twice") + ";aten::add ";
    entry.replace(entry.find(": "), 2, ":_");
    INFO("folded stacks:\n", folded.str());
    CHECK(folded.str().find(entry) != std::string::npos);
  }
}

TEST_CASE("source frames: a profile without with_stack captures no frames and refuses export_stacks") {
  const Tensor x = ones({4});
  Tensor a, b;
  int line_a = 0, line_b = 0;
  Profile prof({.with_modules = true});
  {
    auto running = prof.start();
    stack_test::add_twice(x, a, b, line_a, line_b);
  }
  for (size_t i = 0; i < prof.events().size(); ++i) {
    CHECK(prof.events()[i].frames.empty());
    CHECK(prof.events().stack(i).empty());
  }
  CHECK(find_all(prof.events(), "aten::add").size() == 2);
  // As in PyTorch, grouping by stack without stacks groups by name alone.
  CHECK(prof.key_averages({.group_by_stack_n = 5}).at("aten::add").count == 2);
  CHECK(prof.key_averages({.group_by_stack_n = 5}).table().find("Source Location") == std::string::npos);
  CHECK_THROWS_WITH_AS(prof.export_stacks("/nonexistent-dir/x"),
                       "export_stacks: requires a profile recorded with with_stack=true", Error);
}

}  // namespace
}  // namespace tl::profiler
