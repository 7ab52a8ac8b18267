// tests/ops/test_random_generator.cpp — generator= on the seeded ops: each op given a tl::Generator seeded
// s draws torch.Generator().manual_seed(s)'s numbers (rng_streams.txt, seeds 0, 1 and 2^31 - 1) and leaves the
// default generator's stream where it was; the profiler records ATen's .generator overloads; a moved-from
// generator, or one in a traced or boxed call, is a tl::Error that changes nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "fx/tracer.h"
#include "nn/module.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/support/rng_streams.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::refused;  // a refused call leaves the default stream where it was

using testing::kStreamDtypes;
using testing::kStreamSeeds;
using testing::rng_stream;
using testing::stream_mismatch;
using testing::stream_name;

TEST_CASE("generator=: every seeded op draws torch.Generator().manual_seed(s)'s stream and leaves the default one") {
  for (uint64_t seed : kStreamSeeds) {
    CAPTURE(seed);
    manual_seed(seed + 1);
    const auto check = [&](const std::string& rest, const Tensor& t) {
      CHECK_MESSAGE(stream_mismatch(stream_name(seed, "gen." + rest), t) == "", rest);
    };
    const auto fresh = [&] { return Generator(seed); };
    for (const auto& named : kStreamDtypes) {
      const DType dtype = named.second;
      const std::string d = named.first;
      for (int64_t n : {5, 17}) {
        const std::string size = d + "." + std::to_string(n);
        check("rand." + size, rand({n}, fresh(), dtype));
        check("randn." + size, randn({n}, fresh(), dtype));
        check("uniform_." + size, empty({n}, dtype).uniform_(-2.0, 3.0, fresh()));
        check("normal_." + size, empty({n}, dtype).normal_(0.1, 0.3, fresh()));
        check("normal." + size, normal(arange(0, n, 1, dtype) * 0.5, arange(0, n, 1, dtype) * 0.05 + 0.1, fresh()));
        check("bernoulli." + size, bernoulli(arange(0, n, 1, dtype) / n, fresh()));
        check("bernoulli_." + size, empty({n}, dtype).bernoulli_(0.3, fresh()));
      }
      Generator g = fresh();  // randn's cached normal stays with g, across calls
      const Tensor a = randn({3}, g, dtype), b = randn({5}, g, dtype), c = rand({2}, g, dtype);
      check("sequence." + d, cat({a, b, c}));
    }
    for (int64_t n : {5, 17}) {
      const std::string size = "." + std::to_string(n);
      check("randint" + size, randint(-3, 10, {n}, fresh()));
      check("randint_high" + size, randint(10, {n}, fresh()));
      check("randint_big" + size, randint(0, int64_t{1} << 40, {n}, fresh()));
      check("randperm" + size, randperm(n, fresh()));
      const Tensor w = from_vector<float>({0.1f, 0.0f, 2.0f, 1.0f, 0.5f}, {5});
      check("multinomial.replacement" + size, multinomial(w, n, true, fresh()));
    }
    const Tensor w7 = from_vector<float>({0.1f, 0.0f, 2.0f, 1.0f, 0.5f, 3.0f, 0.25f}, {7});
    check("multinomial.noreplacement.4", w7.multinomial(4, false, fresh()));
    check("randperm.f64.9", randperm(9, fresh(), DType::Float64));
    check("default_after", rand({5}));
  }
}

TEST_CASE("generator=: get_state / set_state on a Generator resume its stream, cached normal included") {
  for (uint64_t seed : kStreamSeeds) {
    CAPTURE(seed);
    Generator g(seed);
    (void)randn({3}, g, DType::Float64);
    const std::vector<uint8_t> state = g.get_state();
    CHECK(stream_mismatch(stream_name(seed, "gen.get_state.drawn"), testing::decimal(state)) == "");
    Generator resumed;
    resumed.set_state(state);
    CHECK(stream_mismatch(stream_name(seed, "gen.set_state.then_randn.f64.3"), randn({3}, resumed, DType::Float64)) == "");
  }
}

TEST_CASE("generator=: copies of a Generator share one stream, as torch.Generator handles do") {
  Generator g(7);
  Generator copy = g;
  const Tensor first = rand({4}, copy);
  Generator reference(7);
  CHECK_TENSOR_CLOSE(first, rand({4}, reference), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(rand({4}, g), rand({4}, reference), 0.0, 0.0);  // g continues where copy left off
}

// The profiler's Input Shapes of `call`'s first `name` event, without spaces (the reference's notation).
template <typename Call>
std::string recorded_inputs(const std::string& name, Call call) {
  profiler::Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    (void)call();
  }
  for (const profiler::FunctionEvent& e : prof.events())
    if (e.name == name) {
      std::string text = profiler::shapes_to_string(e.input_shapes);
      text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
      return text;
    }
  return "no " + name + " event";
}

TEST_CASE("generator=: the profiler records PyTorch's arguments, the .generator overloads' with a generator") {
  Generator g(0);
  const Tensor x = zeros({4, 10}), probs = full({4, 10}, 0.5);
  struct Case {
    const char* op;
    std::function<Tensor(std::optional<Generator>)> call;
  };
  const std::vector<Case> cases = {
      {"rand", [](std::optional<Generator> gen) { return gen ? rand({4, 10}, *gen) : rand({4, 10}); }},
      {"randn", [](std::optional<Generator> gen) { return gen ? randn({4, 10}, *gen) : randn({4, 10}); }},
      {"randint", [](std::optional<Generator> gen) { return gen ? randint(-3, 10, {4, 10}, *gen) : randint(-3, 10, {4, 10}); }},
      {"randperm", [](std::optional<Generator> gen) { return gen ? randperm(7, *gen) : randperm(7); }},
      {"normal", [&](std::optional<Generator> gen) { return normal(x, probs, gen); }},
      {"bernoulli", [&](std::optional<Generator> gen) { return bernoulli(probs, gen); }},
      {"bernoulli_", [&](std::optional<Generator> gen) { return x.clone().bernoulli_(0.3, gen); }},
      {"multinomial", [&](std::optional<Generator> gen) { return multinomial(probs, 3, false, gen); }},
      {"uniform_", [&](std::optional<Generator> gen) { return x.clone().uniform_(-1.0, 2.0, gen); }},
      {"normal_", [&](std::optional<Generator> gen) { return x.clone().normal_(0.5, 2.0, gen); }}};
  for (const Case& c : cases) {
    const std::string name = std::string("aten::") + c.op;
    CAPTURE(name);
    CHECK(recorded_inputs(name, [&] { return c.call(std::nullopt); }) == rng_stream(std::string("profile.") + c.op).at(0));
    CHECK(recorded_inputs(name, [&] { return c.call(g); }) == rng_stream(std::string("profile.") + c.op + ".generator").at(0));
  }
}

TEST_CASE("generator=: a moved-from generator is a tl::Error naming the op, before anything is drawn or written") {
  Generator g(3);
  Generator taken = std::move(g);
  CHECK_FALSE(g.defined());  // NOLINT(bugprone-use-after-move): what is tested
  const Tensor x = full({4}, 2.5);
  const std::string undefined = ": the generator is undefined (a moved-from tl::Generator)";
  refused([&] { return rand({3}, g); }, "rand" + undefined);
  refused([&] { return randn({3}, g); }, "randn" + undefined);
  refused([&] { return randint(0, 5, {3}, g); }, "randint" + undefined);
  refused([&] { return randperm(4, g); }, "randperm" + undefined);
  refused([&] { return normal(x, x, g); }, "normal" + undefined);
  refused([&] { return bernoulli(x / 4, g); }, "bernoulli" + undefined);
  refused([&] { return multinomial(x, 2, false, g); }, "multinomial" + undefined);
  Tensor y = x.clone();
  refused([&] { return y.bernoulli_(0.5, g); }, "bernoulli_" + undefined);
  refused([&] { return y.uniform_(0.0, 1.0, g); }, "uniform_" + undefined);
  refused([&] { return y.normal_(0.0, 1.0, g); }, "normal_" + undefined);
  CHECK_TENSOR_CLOSE(y, x, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(g.manual_seed(1), "Generator: this generator is undefined (it was moved from)", Error);
  CHECK_THROWS_WITH_AS((void)g.get_state(), "Generator: this generator is undefined (it was moved from)", Error);
  const std::vector<uint8_t> taken_state = taken.get_state();
  CHECK(Generator(3).get_state() == taken_state);  // the engine moved whole
}

// bernoulli(x, generator=g) inside forward, as a user's module would call it.
class SeededNoise : public nn::Module {
 public:
  explicit SeededNoise(Generator g) : g_(std::move(g)) {}
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return bernoulli(x, g_); }
  nn::ForwardSignature forward_signature() const override { return {.arg_names = {"x"}}; }
  std::string type_name() const override { return "SeededNoise"; }

 private:
  Generator g_;
};

TEST_CASE("generator=: symbolic tracing refuses a call given a generator, as torch.fx does; a graph takes None only") {
  const Generator g(0);
  const std::vector<uint8_t> before = g.get_state();
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(std::make_shared<SeededNoise>(g)),
                       doctest::Contains("symbolic tracing: aten::bernoulli in SeededNoise.forward was given generator=, "
                                         "an argument of type: <class 'torch._C.Generator'>"),
                       Error);
  CHECK(g.get_state() == before);
  const Tensor p = full({3}, 0.5);
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Bernoulli, {p}, Attrs{{"generator", int64_t{3}}}),
                       "bernoulli: argument 'generator' must be None (boxed arguments carry no generator), got 3", Error);
  manual_seed(5);
  const Tensor boxed = dispatch::call_single_output(OpKind::Bernoulli, {p}, Attrs{{"generator", AttrValue{}}});
  manual_seed(5);
  CHECK_TENSOR_CLOSE(boxed, bernoulli(p), 0.0, 0.0);
}

}  // namespace
}  // namespace tl
