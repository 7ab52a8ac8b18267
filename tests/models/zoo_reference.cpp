// tests/models/zoo_reference.cpp — the family-independent checks against torchvision's references.
#include "tests/models/zoo_reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/graph_module.h"
#include "fx/tracer.h"
#include "models/convnext.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/bn_calibration.h"
#include "tests/support/file_testing.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {
namespace {

using Json = nlohmann::json;

const Json& zoo_reference() {
  static const Json data = Json::parse(gunzip_zlib(read_reference("zoo_classic.json.gz")));
  return data;
}

void check_close(const Tensor& actual, const Json& expected_values, const Shape& shape, const std::string& what) {
  const Tensor expected = from_vector(expected_values.get<std::vector<double>>(), shape);
  double scale = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) scale = std::max(scale, std::fabs(element_at(expected, i)));
  INFO(what, ": logits within 1e-4 of the largest |PyTorch logit| ", scale);
  CHECK_TENSOR_CLOSE(actual, expected, 0.0, 1e-4 * scale);
}

void check_batches(nn::Module& model, const Tensor& x, const Json& expected, int64_t num_classes,
                   const std::string& what) {
  check_close(model(x.narrow(0, 0, 1)), expected.at("batch1"), Shape{1, num_classes}, what + ", batch 1");
  check_close(model(x), expected.at("batch3"), Shape{3, num_classes}, what + ", batch 3");
}

}  // namespace

ZooCase zoo_case(const std::string& family, const std::string& builder) {
  const Json& ref = zoo_reference();
  REQUIRE(ref.at("families").contains(family));
  const Json& f = ref.at("families").at(family);
  REQUIRE(f.at("builders").contains(builder));
  return ZooCase{family,
                 builder,
                 f.at("builders").at(builder),
                 f.at("odd_size").at(0).get<int64_t>(),
                 f.at("odd_size").at(1).get<int64_t>(),
                 ref.at("num_classes").get<int64_t>(),
                 ref.at("seed").get<uint64_t>()};
}

void check_structure(const nn::Module& model, const ZooCase& c) {
  INFO(c.builder);
  CHECK(nn::repr(model) == c.data.at("repr").get<std::string>());
  std::vector<std::pair<std::string, std::vector<int64_t>>> keys, expected;
  for (const auto& [name, t] : model.state_dict())
    keys.emplace_back(name, std::vector<int64_t>(t.shape().begin(), t.shape().end()));
  for (const Json& entry : c.data.at("state_dict"))
    expected.emplace_back(entry.at(0).get<std::string>(), entry.at(1).get<std::vector<int64_t>>());
  CHECK(keys == expected);
  int64_t parameters = 0;
  for (const Tensor& p : model.parameters()) parameters += p.numel();
  CHECK(parameters == c.data.at("parameters").get<int64_t>());
}

SeededModel build_seeded(const ZooCase& c, const std::function<std::shared_ptr<nn::Module>()>& build, bool at_224) {
  manual_seed(c.seed);
  SeededModel m{build(), Tensor(), Tensor()};
  // In float64: a statistic of a BN input whose mean dwarfs its spread would carry both sides' fp32
  // rounding, amplified, into the logits.
  m.model->to(DType::Float64);
  calibrate_batch_norms(*m.model, Shape{2, 3, c.height, c.width});
  m.model->to(DType::Float32);
  m.model->eval();
  m.x_odd = randn({3, 3, c.height, c.width});
  if (at_224) m.x_224 = randn({3, 3, 224, 224});
  return m;
}

void check_logits(const SeededModel& m, const ZooCase& c) {
  check_batches(*m.model, m.x_odd, c.data.at("odd"), c.num_classes,
                c.builder + " at " + std::to_string(c.height) + "x" + std::to_string(c.width));
  if (m.x_224.defined())
    check_batches(*m.model, m.x_224, c.data.at("size224"), c.num_classes, c.builder + " at 224x224");
}

SeededModel check_builder(const ZooCase& c, const std::function<std::shared_ptr<nn::Module>()>& build) {
  SeededModel m = build_seeded(c, build, false);
  check_structure(*m.model, c);
  check_logits(m, c);
  return m;
}

void check_trace(const std::shared_ptr<nn::Module>& model, const ZooCase& c) {
  INFO(c.builder);
  auto traced = fx::symbolic_trace(model);
  const std::string graph = traced->graph().str(), code = traced->code();
  const std::string expected_graph = strip_trailing_newlines(c.data.at("graph").get<std::string>());
  const std::string expected_code = c.data.at("code").get<std::string>();
  CHECK(graph == expected_graph);
  CHECK(code == expected_code);
}

void check_refuses_state_dict(nn::Module& model, const nn::StateDict& other, const std::string& first_missing_key) {
  const nn::StateDict before = model.state_dict();
  std::vector<Tensor> copies;
  for (const auto& [name, t] : before) copies.push_back(t.clone());
  std::string message;
  try {
    model.load_state_dict(other);
  } catch (const Error& e) {
    message = e.what();
  }
  const std::string head = "Error(s) in loading state_dict for " + model.type_name() +
                           ":\n\tMissing key(s) in state_dict: \"" + first_missing_key + "\"";
  CHECK_MESSAGE(message.rfind(head, 0) == 0, message.substr(0, 300));
  const nn::StateDict after = model.state_dict();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(after[i].first);
    CHECK_TENSOR_CLOSE(after[i].second, copies[i], 0.0, 0.0);
  }
}

void apply_vit_head_rule(nn::Module& model) {
  NoGradGuard no_grad;
  const auto head = model.get_submodule("heads.head");
  const Tensor weight = head->parameter("weight");
  const int64_t out = weight.size(0), in = weight.size(1);
  std::vector<double> w(static_cast<size_t>(out * in)), b(static_cast<size_t>(out));
  for (size_t j = 0; j < w.size(); ++j) w[j] = 0.02 * std::sin(0.37 * static_cast<double>(j) + 1.0);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.01 * std::cos(0.5 * static_cast<double>(i));
  head->parameter("weight").copy_(from_vector(w, {out, in}));
  head->parameter("bias").copy_(from_vector(b, {out}));
}

void apply_layer_norm_rule(nn::Module& model) {
  NoGradGuard no_grad;
  auto rule = [](Tensor t, const std::function<double(double)>& f) {
    std::vector<double> v;
    for (int64_t c = 0; c < t.numel(); ++c) v.push_back(f(static_cast<double>(c)));
    t.copy_(from_vector(v, t.shape()));
  };
  double k = 0, j = 0;
  for (const auto& [name, m] : model.named_modules()) {
    if (dynamic_cast<nn::LayerNorm*>(m.get())) {
      rule(m->parameter("weight"), [k](double c) { return 1.0 + 0.2 * std::sin(0.5 * c + 3 * k); });
      rule(m->parameter("bias"), [k](double c) { return 0.1 * std::cos(0.9 * c + k); });
      k += 1;
    } else if (dynamic_cast<models::convnext::CNBlock*>(m.get())) {
      rule(m->parameter("layer_scale"), [j](double c) { return 0.5 + 0.25 * std::sin(0.3 * c + j); });
      j += 1;
    }
  }
}

}  // namespace tl::testing
