// tests/ops/loss_cases.cpp — loading the cases of tests/ops/data/*.json and calling each loss case's op.
#include "tests/ops/loss_cases.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {
namespace {

using Json = nlohmann::json;

Tensor tensor_of(const Json& j) {
  if (j.is_null()) return {};
  Shape shape;
  for (const auto& d : j["shape"]) shape.push_back(d.get<int64_t>());
  const std::string dtype = j["dtype"].get<std::string>();
  std::vector<double> values;
  for (const auto& v : j["values"]) values.push_back(std::strtod(v.get<std::string>().c_str(), nullptr));
  const Tensor t = from_vector<double>(values, shape);
  const DType to = dtype == "float32" ? DType::Float32
                   : dtype == "int32" ? DType::Int32
                   : dtype == "bool"  ? DType::Bool
                   : dtype == "int64" ? DType::Int64
                   : dtype == "bfloat16" ? DType::BFloat16
                                      : DType::Float64;
  return t.to(to);
}

DType dtype_named(const std::string& name) { return name == "float64" ? DType::Float64 : DType::Float32; }

}  // namespace

const std::vector<OpCase>& op_cases(const std::string& file) {
  static std::map<std::string, std::vector<OpCase>> loaded;
  if (auto it = loaded.find(file); it != loaded.end()) return it->second;
  const std::string path = "tests/ops/data/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + " not found (run from the project root)");
  const Json data = Json::parse(in);
  std::vector<OpCase> out;
  for (const Json& j : data["cases"]) {
    OpCase c{j["name"].get<std::string>(), j["op"].get<std::string>(), {}, {}, {}, {}, j.value("ties", false), {}, {}, {}};
    for (const auto& item : j["inputs"].items()) c.inputs[item.key()] = tensor_of(item.value());
    for (const auto& item : j["args"].items()) {
      const Json& v = item.value();
      if (item.key() == "dtype") c.dtype = v.get<std::string>();
      else if (v.is_object()) c.strings[item.key()] = v.at("str").get<std::string>();
      else if (v.is_string()) c.numbers[item.key()] = std::strtod(v.get<std::string>().c_str(), nullptr);
      else if (v.is_array()) c.lists[item.key()] = v.get<std::vector<int64_t>>();
      else if (v.is_boolean()) c.numbers[item.key()] = v.get<bool>() ? 1 : 0;
      else if (!v.is_null()) c.numbers[item.key()] = v.get<double>();
    }
    for (const Json& o : j["outputs"]) c.expected.push_back(tensor_of(o));
    if (j.contains("grads"))
      for (const auto& item : j["grads"].items()) c.grads[item.key()] = tensor_of(item.value());
    out.push_back(std::move(c));
  }
  return loaded.emplace(file, std::move(out)).first->second;
}

const std::vector<OpCase>& loss_cases() { return op_cases("loss_cases.json"); }

TensorList run_loss_case(const OpCase& c) {
  const auto in = [&](const char* name) { return c.inputs.count(name) ? c.inputs.at(name) : Tensor(); };
  const auto num = [&](const char* name) { return static_cast<int64_t>(c.numbers.at(name)); };
  const Tensor self = in("self");
  if (c.op == "_softmax") return {_softmax(self, num("dim"), false)};
  if (c.op == "_log_softmax") return {_log_softmax(self, num("dim"), false)};
  const Tensor grad = in("grad_output");
  if (c.op == "_softmax_backward_data") return {_softmax_backward_data(grad, in("output"), num("dim"), grad.dtype())};
  if (c.op == "_log_softmax_backward_data")
    return {_log_softmax_backward_data(grad, in("output"), num("dim"), grad.dtype())};
  const std::optional<DType> dtype = c.dtype.empty() ? std::nullopt : std::optional(dtype_named(c.dtype));
  if (c.op == "softmax") return {softmax(self, num("dim"), dtype)};
  if (c.op == "log_softmax") return {log_softmax(self, num("dim"), dtype)};
  if (c.op == "mse_loss") return {mse_loss(self, in("target"), num("reduction"))};
  if (c.op == "mse_loss_backward") return {mse_loss_backward(grad, self, in("target"), num("reduction"))};
  const Tensor target = in("target"), weight = in("weight");
  if (c.op == "nll_loss_forward") {
    const auto [out, total] = nll_loss_forward(self, target, weight, num("reduction"), num("ignore_index"));
    return {out, total};
  }
  if (c.op == "nll_loss_backward")
    return {nll_loss_backward(grad, self, target, weight, num("reduction"), num("ignore_index"), in("total_weight"))};
  if (c.op == "nll_loss") return {nll_loss(self, target, weight, num("reduction"), num("ignore_index"))};
  if (c.op == "cross_entropy_loss")
    return {cross_entropy_loss(self, target, weight, num("reduction"), num("ignore_index"),
                               c.numbers.at("label_smoothing"))};
  const auto real = [&](const char* name) { return c.numbers.at(name); };
  const auto flag = [&](const char* name) { return c.numbers.at(name) != 0; };
  if (c.op == "l1_loss") return {l1_loss(self, target, num("reduction"))};
  if (c.op == "smooth_l1_loss") return {smooth_l1_loss(self, target, num("reduction"), real("beta"))};
  if (c.op == "smooth_l1_loss_backward")
    return {smooth_l1_loss_backward(grad, self, target, num("reduction"), real("beta"))};
  if (c.op == "huber_loss") return {huber_loss(self, target, num("reduction"), real("delta"))};
  if (c.op == "huber_loss_backward") return {huber_loss_backward(grad, self, target, num("reduction"), real("delta"))};
  if (c.op == "binary_cross_entropy") return {binary_cross_entropy(self, target, weight, num("reduction"))};
  if (c.op == "binary_cross_entropy_backward")
    return {binary_cross_entropy_backward(grad, self, target, weight, num("reduction"))};
  if (c.op == "binary_cross_entropy_with_logits")
    return {binary_cross_entropy_with_logits(self, target, weight, in("pos_weight"), num("reduction"))};
  if (c.op == "xlogy") return {c.inputs.count("other") ? xlogy(self, in("other")) : xlogy(self, real("other"))};
  if (c.op == "kl_div") return {kl_div(self, target, num("reduction"), flag("log_target"))};
  const Tensor input1 = in("input1"), input2 = in("input2");
  if (c.op == "cosine_embedding_loss")
    return {cosine_embedding_loss(input1, input2, target, real("margin"), num("reduction"))};
  if (c.op == "margin_ranking_loss") return {margin_ranking_loss(input1, input2, target, real("margin"), num("reduction"))};
  if (c.op == "triplet_margin_loss")
    return {triplet_margin_loss(in("anchor"), in("positive"), in("negative"), real("margin"), real("p"), real("eps"),
                                flag("swap"), num("reduction"))};
  if (c.op == "pairwise_distance") return {pairwise_distance(in("x1"), in("x2"), real("p"), real("eps"), flag("keepdim"))};
  if (c.op == "cosine_similarity") return {cosine_similarity(in("x1"), in("x2"), num("dim"), real("eps"))};
  if (c.op == "one_hot") return {one_hot(self, num("num_classes"))};
  throw std::runtime_error("loss_cases.json: no call for op " + c.op);
}

double loss_rtol(const Tensor& t) { return t.dtype() == DType::Float64 ? 1e-12 : 1e-5; }

int check_loss_cases(bool softmax) {
  int checked = 0;
  for (const OpCase& c : loss_cases()) {
    if ((c.op.find("softmax") != std::string::npos) != softmax) continue;
    CAPTURE(c.name);
    const TensorList got = run_loss_case(c);
    REQUIRE(got.size() == c.expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].dtype() == c.expected[i].dtype());
      const double rtol = loss_rtol(c.expected[i]);
      CHECK_TENSOR_CLOSE(got[i], c.expected[i], rtol, rtol / 10);
    }
    ++checked;
  }
  return checked;
}

}  // namespace tl::testing
