// tests/ao/convert_cases.h — what the convert_fx tests share: a model of tests/ao/gen_convert_cases.py calibrated
// to PyTorch's observer statistics, and the check of a converted model's integers against PyTorch 1.13's (#33's line).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ao/quantization/prepare.h"
#include "core/grad_mode.h"
#include "fx/interpreter.h"
#include "tests/ao/ao_cases.h"

namespace tl::ao::quantization::testing {

inline Json convert_cases() { return cases("convert_cases", "gen_convert_cases.py"); }

// A model as the generator builds it, eval mode, with its calibration batches and input.
struct Case {
  std::shared_ptr<tl::nn::Module> model;
  std::vector<Tensor> batches;
  Tensor input;
};

inline Case small_case(const Json& data) {
  Case c{std::make_shared<testing::Small>(), {}, tensor_of(data.at("input"))};
  NoGradGuard no_grad;
  for (const auto& [key, value] : c.model->state_dict()) {
    Tensor target = value;  // the model's own tensor
    if (data.at("weights").contains(key)) target.copy_(tensor_of(data.at("weights").at(key)));
  }
  for (const Json& b : data.at("batches")) c.batches.push_back(tensor_of(b));
  c.model->eval();
  return c;
}

// prepare_fx, then calibration on the batches. Our float kernels round differently from PyTorch's, so the
// observers' statistics then agree to rounding (test_prepare.cpp checks that); they are replaced by PyTorch's, so
// the qparams, which the texts print, are PyTorch's to the bit.
inline std::shared_ptr<fx::GraphModule> calibrated(const Case& c, const Json& data) {
  auto prepared = prepare_fx(c.model, get_default_qconfig_mapping("onednn"), {c.batches[0]});
  NoGradGuard no_grad;
  for (const Tensor& b : c.batches) (*prepared)(b);
  for (const auto& observer : data.at("observers").items()) {
    const auto module = prepared->get_submodule(observer.key());
    for (const auto& buffer : observer.value().items()) module->buffer(buffer.key()) = tensor_of(buffer.value());
  }
  return prepared;
}

// Runs a GraphModule, keeping a copy of every quantized value by node name, taken when the node has run (as the
// generators read the integers): a later in-place op (a ReLU6(inplace=True) after a conv) changes the value itself.
class Recorder : public fx::Interpreter {
 public:
  using fx::Interpreter::Interpreter;
  fx::NodeValue run_node(fx::Node& n) override {
    fx::NodeValue v = fx::Interpreter::run_node(n);
    if (v.is_tensor() && v.tensor().defined() && v.tensor().is_quantized()) values[n.name()] = v.tensor().clone();
    return v;
  }
  std::map<std::string, Tensor> values;
};

// The node whose value the graph's output dequantizes: the logits, quantized.
inline std::string last_quantized(const fx::GraphModule& gm) {
  const fx::Node* dequantize = gm.graph().output_node()->args().at(0).node();
  return dequantize->args().at(0).node()->name();
}

// #33's numerics: every quantized value PyTorch computes is computed here with its qparams, its integers (all, or
// the generator's evenly spaced sample) equal on at least 99% of elements and within one quantum elsewhere (two for
// the logits); the logits then within two quanta of PyTorch's.
inline void check_integers(const std::shared_ptr<fx::GraphModule>& converted, const Tensor& input, const Json& data) {
  Recorder recorder(converted);
  NoGradGuard no_grad;
  const Tensor logits = recorder.run(input).reshape({-1});
  const Json& expected = data.at("ints");
  const std::string last = last_quantized(*converted);
  CHECK(recorder.values.size() == expected.size());
  int64_t all_equal = 0, all_compared = 0;  // over every value, for the report
  for (const auto& item : expected.items()) {
    const std::string name = item.key();
    const Json& e = item.value();
    CAPTURE(name);
    REQUIRE(recorder.values.count(name) == 1);
    const Tensor& q = recorder.values.at(name);
    CHECK(q.shape() == Shape(e.at("shape").get<std::vector<int64_t>>()));
    CHECK(q.q_scale() == e.at("scale").get<double>());
    CHECK(q.q_zero_point() == e.at("zero_point").get<int64_t>());
    const Tensor ints = q.int_repr().to(kLong).contiguous().reshape({-1});
    const auto want = e.at("values").get<std::vector<int64_t>>();
    // Every integer, or (a sample: the generator's "step") every step-th from the first.
    const int64_t step = e.value("step", int64_t{1});
    const auto count = static_cast<int64_t>(want.size());
    if (!e.contains("step")) REQUIRE(ints.numel() == count);
    REQUIRE(count > 0);
    REQUIRE((count - 1) * step < ints.numel());
    const int64_t* got = ints.data<int64_t>();
    int64_t equal = 0, worst = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const int64_t d = std::abs(got[static_cast<int64_t>(i) * step] - want[i]);
      equal += d == 0 ? 1 : 0;
      worst = std::max(worst, d);
    }
    CHECK(static_cast<double>(equal) >= 0.99 * static_cast<double>(want.size()));
    CHECK(worst <= (name == last ? 2 : 1));
    all_equal += equal;
    all_compared += count;
  }
  MESSAGE(expected.size(), " quantized values: ", all_equal, " of ", all_compared,
          " compared integers equal PyTorch's");
  const double quantum = recorder.values.at(last).q_scale();
  const auto want = data.at("logits");
  REQUIRE(logits.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(std::abs(logits[static_cast<int64_t>(i)].item<double>() - number(want[i])) <= 2 * quantum + 1e-6);
}

}  // namespace tl::ao::quantization::testing
