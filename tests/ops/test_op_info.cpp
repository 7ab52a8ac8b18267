// tests/ops/test_op_info.cpp — generic checks run over every sample of every op (tests/ops/op_db.h), as
// PyTorch's OpInfo tests do: non-contiguous input, traced GraphModule and Interpreter against eager, the
// profiler's input shapes, zero-size input. A sample skips a check only with the reason it declares.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <variant>

#include "core/generator.h"
#include "core/op_kind.h"
#include "core/schema.h"
#include "fx/interpreter.h"
#include "fx/tracer.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/ops/op_db.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {
namespace {

constexpr uint64_t kSeed = 2024;

/// Finite inputs of the samples' shape (1, 2, 4, 4). full and arange read x[5]: a positive end.
std::pair<Tensor, Tensor> inputs() {
  manual_seed(0);
  Tensor x = randn({1, 2, 4, 4});
  x.data<float>()[5] = 2.5f;
  return {x, rand({1, 2, 4, 4}) + Scalar(0.5)};
}

/// A sample's results, or the message of the tl::Error it threw.
using Outcome = std::variant<TensorList, std::string>;

/// Runs a sample; ops that draw random numbers are reseeded first, so two runs compare.
Outcome run(OpKind op, const SampleFn& fn, const Tensor& x, const Tensor& y) {
  if (schema_of(op).has_tag(OpTag::NondeterministicSeeded)) manual_seed(kSeed);
  try {
    return fn(x, y);
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

/// Empty when the outcomes are the same error or the same tensors bit for bit (NaN equals NaN, zeros
/// keep their sign); otherwise the first difference. With atol_scale > 0 (a sample whose results are
/// sums, rounded in an order that follows the memory layout) finite values may differ by
/// atol_scale * max |expected|.
std::string differs(const Outcome& got, const Outcome& expected, double atol_scale = 0) {
  std::ostringstream why;
  if (got.index() != expected.index() || got.index() == 1) {
    const auto text = [](const Outcome& o) { return o.index() == 1 ? "threw: " + std::get<1>(o) : std::string("ran"); };
    if (text(got) == text(expected)) return "";
    why << "got " << text(got) << "; expected " << text(expected);
    return why.str();
  }
  const TensorList& a = std::get<0>(got);
  const TensorList& e = std::get<0>(expected);
  if (a.size() != e.size()) return "got " + std::to_string(a.size()) + " results, expected " + std::to_string(e.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape() != e[i].shape() || a[i].dtype() != e[i].dtype()) {
      why << "result " << i << ": got " << a[i].shape() << " " << a[i].dtype() << ", expected " << e[i].shape() << " "
          << e[i].dtype();
      return why.str();
    }
    double atol = 0;
    for (int64_t k = 0; k < e[i].numel(); ++k)
      if (std::isfinite(element_at(e[i], k))) atol = std::max(atol, atol_scale * std::abs(element_at(e[i], k)));
    for (int64_t k = 0; k < a[i].numel(); ++k) {
      const double u = element_at(a[i], k), v = element_at(e[i], k);
      const bool close = atol > 0 && std::isfinite(u) && std::isfinite(v) && std::abs(u - v) <= atol;
      const bool same = (std::isnan(u) && std::isnan(v)) || (u == v && std::signbit(u) == std::signbit(v)) || close;
      if (!same) {
        why.precision(9);
        why << "result " << i << " element " << k << ": got " << u << ", expected " << v;
        return why.str();
      }
    }
  }
  return "";
}

/// How many samples one check ran and skipped; the skips that name a bug are listed.
struct Tally {
  std::string check;
  int ran = 0, skipped = 0;
  std::string bugs;

  /// True when the check runs; otherwise counts the skip.
  bool runs(const std::string& skip_reason, const std::string& where) {
    if (skip_reason.empty()) {
      ++ran;
      return true;
    }
    ++skipped;
    if (skip_reason.rfind("bug:", 0) == 0) bugs += "\n  " + where + ": " + skip_reason;
    return false;
  }
  void report() const { MESSAGE(check, ": ", ran, " samples ran, ", skipped, " skipped", bugs); }
};

/// Calls `check(op, sample, where)` for every sample of every op.
template <typename Check>
void for_each_sample(Check check) {
  for (int k = 0; k < kNumOps; ++k) {
    const auto op = static_cast<OpKind>(k);
    for (const Sample& sample : samples_of(op)) {
      const std::string where = std::string(op_name(op)) + "/" + sample.name;
      CAPTURE(where);
      check(op, sample, where);
    }
  }
}

/// forward(x, y) is the sample, so symbolic tracing records what it calls.
class SampleModule : public nn::Module {
 public:
  explicit SampleModule(SampleFn fn) : fn_(std::move(fn)) {}
  using nn::Module::forward;
  TensorList forward(nn::Inputs in) override { return fn_(in[0], in[1]); }
  nn::ForwardSignature forward_signature() const override { return {.arg_names = {"x", "y"}}; }
  std::string type_name() const override { return "SampleModule"; }

 private:
  SampleFn fn_;
};

TEST_CASE("op info: a non-contiguous x gives the contiguous results (bit for bit unless summed)") {
  const auto in = inputs();
  const Tensor &xc = in.first, &yc = in.second;
  const Tensor strided = xc.transpose(2, 3).contiguous().transpose(2, 3);  // same values, strides (32, 16, 1, 4)
  REQUIRE_FALSE(strided.is_contiguous());
  Tally tally{"non-contiguous input"};
  for_each_sample([&](OpKind op, const Sample& sample, const std::string& where) {
    if (!tally.runs(sample.skip_noncontiguous, where)) return;
    const std::string why = differs(run(op, sample.fn, strided, yc), run(op, sample.fn, xc, yc), sample.atol_scale);
    CHECK_MESSAGE(why.empty(), why);
  });
  tally.report();
}

TEST_CASE("op info: the traced GraphModule and the Interpreter equal eager bit for bit") {
  const auto in = inputs();
  const Tensor &xc = in.first, &yc = in.second;
  Tally tally{"traced GraphModule and Interpreter"};
  for_each_sample([&](OpKind op, const Sample& sample, const std::string& where) {
    if (!tally.runs(sample.skip_trace, where)) return;
    const Outcome eager = run(op, sample.fn, xc, yc);
    REQUIRE_MESSAGE(eager.index() == 0, "eager threw: ", std::get<1>(eager));
    // A trace apiece: the samples' constants (running stats, ...) start fresh for each runner.
    const auto trace = [&] {
      if (schema_of(op).has_tag(OpTag::NondeterministicSeeded)) manual_seed(kSeed);
      return fx::symbolic_trace(std::make_shared<SampleModule>(sample.fn), {xc, yc});
    };
    std::shared_ptr<fx::GraphModule> module, interpreted;
    try {
      module = trace();
      interpreted = trace();
    } catch (const Error& e) {
      FAIL_CHECK("symbolic_trace threw: ", std::string(e.what()));
      return;
    }
    const std::string by_module =
        differs(run(op, [&](const Tensor& a, const Tensor& b) { return (*module)(TensorList{a, b}); }, xc, yc), eager);
    CHECK_MESSAGE(by_module.empty(), "GraphModule: ", by_module, "\n", module->code());
    fx::Interpreter interpreter(interpreted);
    const std::string by_interpreter =
        differs(run(op, [&](const Tensor& a, const Tensor& b) { return interpreter.run(TensorList{a, b}); }, xc, yc), eager);
    CHECK_MESSAGE(by_interpreter.empty(), "Interpreter: ", by_interpreter);
  });
  tally.report();
}

// The number of arguments of the overload PyTorch 1.13 records, where it differs from the schema row's
// (the profiler lists PyTorch's, profiler/op_inputs.cpp); 0 where they agree. sum and mean have a
// dimless overload (self, dtype) besides (self, dim, keepdim, dtype).
std::vector<size_t> pytorch_arguments(OpKind op) {
  switch (op) {
    case OpKind::Rsub: return {3};  // + alpha, which the rsub row lacks
    case OpKind::Clone: case OpKind::Contiguous: return {2};  // + memory_format
    case OpKind::To: return {5};  // + memory_format
    case OpKind::Empty: return {6};  // + layout, device, pin_memory, memory_format
    case OpKind::Zeros: case OpKind::Ones: return {5};  // + layout, device, pin_memory
    // rand(size, *, dtype, layout, device, pin_memory): the overload without generator, which the row has last
    case OpKind::Rand: case OpKind::Randn: case OpKind::Randperm: return {5};
    case OpKind::Randint: return {7};  // randint.low(low, high, size, *, dtype, layout, device, pin_memory)
    case OpKind::Full: return {6};  // + layout, device, pin_memory
    case OpKind::Arange: return {4, 7};  // + layout, device, pin_memory; 4: the start_out overload inside
    case OpKind::Linspace: return {7};  // + layout, device, pin_memory
    case OpKind::Logspace: return {8};  // + layout, device, pin_memory
    case OpKind::Eye: return {5, 6};  // eye(n) and eye.m(n, m), + layout, device, pin_memory
    case OpKind::EmptyLike: case OpKind::ZerosLike: case OpKind::OnesLike: return {6};  // + layout, device, pin_memory, memory_format
    case OpKind::FullLike: return {7};  // + layout, device, pin_memory, memory_format
    case OpKind::Sum: case OpKind::Mean: return {2, 4};  // the dimless overload, and the dim one inside it
    case OpKind::Max: case OpKind::Min: return {1, 3};
    case OpKind::Abs: return {1, 2};  // abs, and the abs.out (self, out) ATen runs inside it
    case OpKind::Nonzero: return {1};  // as_tuple is Python's
    case OpKind::Einsum: return {3};  // + path
    default: return {};
  }
}

TEST_CASE("op info: the profiler records the op with one input shape per argument of PyTorch's schema") {
  const auto in = inputs();
  const Tensor &xc = in.first, &yc = in.second;
  Tally tally{"profiler input shapes"};
  for_each_sample([&](OpKind op, const Sample& sample, const std::string& where) {
    if (!tally.runs(sample.skip_profile, where)) return;
    profiler::Profile prof({.record_shapes = true});
    {
      auto running = prof.start();
      const Outcome out = run(op, sample.fn, xc, yc);
      CHECK_MESSAGE(out.index() == 0, "threw");
    }
    const std::string aten = op_info(op).aten_name;
    std::vector<size_t> expected = pytorch_arguments(op);
    if (expected.empty()) expected = {schema_of(op).args.size()};
    const size_t args = expected.back();
    int recorded = 0;
    for (const profiler::FunctionEvent& e : prof.events()) {
      if (e.name != aten) continue;
      ++recorded;
      CHECK_MESSAGE(std::find(expected.begin(), expected.end(), e.input_shapes.size()) != expected.end(), aten, " recorded ", e.input_shapes.size(), " input shapes (",
                    profiler::shapes_to_string(e.input_shapes), ") for ", args, " arguments");
    }
    CHECK_MESSAGE(recorded > 0, "no ", aten, " event recorded");
  });
  tally.report();
}

TEST_CASE("op info: shape-generic samples take a zero-size x and y") {
  const Tensor x = zeros({1, 2, 0, 4}), y = zeros({1, 2, 0, 4});
  Tally tally{"zero-size input"};
  std::string raised;
  for_each_sample([&](OpKind op, const Sample& sample, const std::string& where) {
    if (!tally.runs(sample.shape_generic ? "" : "not shape-generic", where)) return;
    const Outcome out = run(op, sample.fn, x, y);
    if (out.index() == 1) {
      raised += "\n  " + where + ": " + std::get<1>(out);
      return;
    }
    bool empty = false;
    for (const Tensor& t : std::get<0>(out))
      for (int64_t d : t.shape()) empty = empty || d == 0;
    CHECK_MESSAGE(empty, "no result has a zero dimension");
  });
  tally.report();
  MESSAGE("zero-size input: raised tl::Error:", raised);
}

}  // namespace
}  // namespace tl::testing
