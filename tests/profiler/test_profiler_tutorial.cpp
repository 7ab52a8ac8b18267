// tests/profiler/test_profiler_tutorial.cpp — the profiler tutorial's three acts against PyTorch 1.13: each
// key_averages() row's name, count and memory columns equal those of PyTorch's event tree
// (tests/reference/profiler_tutorial_memory.txt), but for op_tree_util.h's kNotMirrored events.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/my_module.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "op_tree_util.h"

namespace tl::profiler {
namespace {

// A key_averages() row's figures: # of Calls, CPU Mem, Self CPU Mem.
using Row = std::tuple<int64_t, int64_t, int64_t>;

// PyTorch's rows for one act: its event tree without kNotMirrored's events, each event's CPU Mem as
// recorded (the dropped events' allocations stay in their parent's), its Self CPU Mem that minus its kept
// children's, summed by name; allocations outside every op make the "[memory]" row.
std::map<std::string, Row> pytorch_rows(const std::string& act) {
  struct Open {
    std::string name;
    int64_t cpu, children;
  };
  std::map<std::string, Row> rows;
  std::vector<Open> open;  // the path to the current line
  const auto close_to = [&](size_t depth) {
    for (; open.size() > depth; open.pop_back()) {
      Row& row = rows[open.back().name];
      std::get<0>(row) += 1;
      std::get<1>(row) += open.back().cpu;
      std::get<2>(row) += open.back().cpu - open.back().children;
    }
  };
  for (const std::string& text : testing::reference_tree("profiler_tutorial_memory.txt", "# " + act)) {
    const size_t depth = text.find_first_not_of(' ') / 2, last_space = text.rfind(' ');
    const int64_t cpu = std::stoll(text.substr(last_space + 1));
    close_to(depth);
    if (!open.empty()) open.back().children += cpu;
    open.push_back({text.substr(2 * depth, last_space - 2 * depth), cpu, 0});
  }
  close_to(0);
  return rows;
}

// The act as make_tutorial_memory_references.py runs it: MyModule(500, 10) with weight 0 and bias 0.05, input
// 128 x 500, mask[i] = (i % 7) / 7 of 100^3 elements; one forward as warm-up, one profiled, in grad mode.
std::map<std::string, Row> our_rows(DType mask_dtype, bool use_nonzero) {
  manual_seed(0);
  models::MyModule module({.use_nonzero = use_nonzero});
  {
    NoGradGuard no_grad;
    Tensor& weight = module.get_submodule("linear")->parameter("weight");
    Tensor& bias = module.get_submodule("linear")->parameter("bias");
    weight.copy_(zeros(weight.shape()));
    bias.copy_(full(bias.shape(), 0.05));
  }
  constexpr int64_t kSide = 100;
  std::vector<double> values(kSide * kSide * kSide);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 7) / 7;
  const Tensor mask = from_vector(values, {kSide, kSide, kSide}).to(mask_dtype);
  const Tensor input = rand({128, 500});
  module({input, mask});
  Profile prof({.profile_memory = true, .with_stack = true});
  {
    auto running = prof.start();
    module({input, mask});
  }
  std::map<std::string, Row> rows;
  for (const FunctionEventAvg& r : prof.key_averages())
    rows[r.key] = {r.count, r.cpu_memory_usage, r.self_cpu_memory_usage};
  return rows;
}

// Mean's in-place division by the element count: ATen wraps the number in a 0-d tensor (div_.Scalar, 8 bytes)
// and converts it in div_.Tensor's to -> _to_copy (4 bytes, freed by div_); torchless divides by the number
// itself and records those scopes (ops/aten_tree.cpp's scalar_div_children) without making the tensors. Where
// inside div_ those bytes come and go is left out: to's and _to_copy's memory columns, div_'s Self CPU Mem.
// div_'s CPU Mem (0 in both) and every other column are compared.
std::map<std::string, Row> without_number_operand(std::map<std::string, Row> rows) {
  for (const char* name : {"aten::to", "aten::_to_copy"})
    if (auto it = rows.find(name); it != rows.end()) std::get<1>(it->second) = std::get<2>(it->second) = 0;
  if (auto it = rows.find("aten::div_"); it != rows.end()) std::get<2>(it->second) = 0;
  return rows;
}

std::string text_of(const std::map<std::string, Row>& rows) {
  std::string s;
  for (const auto& [name, row] : rows)
    s += name + ": " + std::to_string(std::get<0>(row)) + " calls, CPU Mem " + std::to_string(std::get<1>(row)) +
         ", Self CPU Mem " + std::to_string(std::get<2>(row)) + "\n";
  return s;
}

TEST_CASE("profiler tutorial: each act's names, counts and memory columns are PyTorch's") {
  const struct {
    const char* act;
    DType dtype;
    bool use_nonzero;
  } acts[] = {{"act 1: float64 mask, MASK INDICES through NumPy", DType::Float64, false},
              {"act 2: float32 mask, MASK INDICES through NumPy", DType::Float32, false},
              {"act 3: float32 mask, MASK INDICES through nonzero()", DType::Float32, true}};
  for (const auto& a : acts) {
    CAPTURE(a.act);
    const std::map<std::string, Row> ours = without_number_operand(our_rows(a.dtype, a.use_nonzero)),
                                     pytorch = without_number_operand(pytorch_rows(a.act));
    CHECK_MESSAGE(ours == pytorch, "PyTorch 1.13:\n", text_of(pytorch), "torchless:\n", text_of(ours));
  }
}

TEST_CASE("profiler tutorial: MASK INDICES frees the mask's copy, and nothing of NumPy's, as in PyTorch") {
  // The tutorial's lesson in bytes: the copy (its aten::empty, a child) is freed by the scope itself, which
  // also frees out.sum(1) (128 floats) and its mean; argwhere's result is wrapped, as torch.from_numpy wraps
  // NumPy's memory, so no allocation of it is seen. A float32 mask halves the figure.
  constexpr int64_t kCopy = int64_t{100} * 100 * 100;
  CHECK(std::get<2>(pytorch_rows("act 1: float64 mask, MASK INDICES through NumPy")["MASK INDICES"]) ==
        -kCopy * 8 - 512 - 4);
  CHECK(std::get<2>(our_rows(DType::Float64, false)["MASK INDICES"]) == -kCopy * 8 - 512 - 4);
  CHECK(std::get<2>(our_rows(DType::Float32, false)["MASK INDICES"]) == -kCopy * 4 - 512 - 4);
}

}  // namespace
}  // namespace tl::profiler
