// tests/support/zoo_references.cpp — the BatchNorm/input rules and reference parsers of zoo_references.h.
#include "tests/support/zoo_references.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <regex>
#include <sstream>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"

namespace tl::testing {
namespace {

Tensor rule(int64_t n, const std::function<double(double)>& f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c) v[static_cast<size_t>(c)] = static_cast<float>(f(static_cast<double>(c)));
  return from_vector(v, {n});
}

std::string shape_text(const Shape& s) {
  std::string out;
  for (int64_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

}  // namespace

int64_t parameter_count(const nn::Module& model) {
  int64_t n = 0;
  for (const Tensor& p : model.parameters()) n += p.numel();
  return n;
}

std::string zoo_reference(const std::string& dir, const std::string& name, const std::string& what) {
  return read_reference(dir + "/" + name + "_" + what + ".txt");
}

void apply_bn_rule(nn::Module& model) {
  NoGradGuard no_grad;
  double k = 0;
  for (const auto& [name, m] : model.named_modules()) {
    auto* bn = dynamic_cast<nn::BatchNorm2d*>(m.get());
    if (!bn) continue;
    const int64_t c = bn->buffer("running_mean").numel();
    bn->buffer("running_mean").copy_(rule(c, [&](double x) { return 0.1 * std::sin(0.7 * x + k); }));
    bn->buffer("running_var").copy_(rule(c, [&](double x) { return 1.0 + 0.25 * (1.0 + std::cos(0.3 * x + 2 * k)); }));
    bn->parameter("weight").copy_(rule(c, [&](double x) { return 1.0 + 0.2 * std::sin(0.5 * x + 3 * k); }));
    bn->parameter("bias").copy_(rule(c, [&](double x) { return 0.1 * std::cos(0.9 * x + k); }));
    k += 1;
  }
}

Tensor zoo_input(int64_t n, int64_t size) {
  const int64_t per_sample = 3 * size * size;
  std::vector<float> v(static_cast<size_t>(n * per_sample));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t j = 0; j < per_sample; ++j)
      v[static_cast<size_t>(s * per_sample + j)] =
          static_cast<float>(std::sin(0.05 * static_cast<double>(j) + static_cast<double>(s)));
  return from_vector(v, {n, 3, size, size});
}

std::string state_dict_mismatch(const nn::Module& model, const std::string& reference) {
  const nn::StateDict dict = model.state_dict();
  std::istringstream in(reference);
  std::string line;
  size_t i = 0;
  for (; std::getline(in, line); ++i) {
    // "key shape sum sum_sq", the shape "" for a 0-d tensor: split at single spaces.
    std::istringstream fields(line);
    std::string key, shape, sum_text, sum_sq_text;
    std::getline(fields, key, ' ');
    std::getline(fields, shape, ' ');
    std::getline(fields, sum_text, ' ');
    std::getline(fields, sum_sq_text, ' ');
    const double sum = std::stod(sum_text), sum_sq = std::stod(sum_sq_text);
    if (i >= dict.size()) return "the model has " + std::to_string(dict.size()) + " entries; the reference has " + key;
    const auto& [name, t] = dict[i];
    if (name != key) return "entry " + std::to_string(i) + " is " + name + ", PyTorch's is " + key;
    if (shape_text(t.shape()) != shape) return key + " has shape " + shape_text(t.shape()) + ", PyTorch's " + shape;
    // One pass in double over the elements (float parameters and buffers; num_batches_tracked is int64).
    double our_sum = 0, our_sq = 0;
    const Tensor c = t.detach().to(DType::Float64).contiguous();
    const double* v = c.data<double>();
    for (int64_t j = 0; j < c.numel(); ++j) {
      our_sum += v[j];
      our_sq += v[j] * v[j];
    }
    const double scale = std::sqrt(sum_sq * static_cast<double>(t.numel())) + 1e-12;
    if (std::abs(our_sum - sum) > 1e-6 * scale || std::abs(our_sq - sum_sq) > 1e-6 * sum_sq + 1e-12) {
      std::ostringstream os;
      os.precision(9);
      os << key << ": sum " << our_sum << " and sum of squares " << our_sq << ", PyTorch's " << sum << " and "
         << sum_sq;
      return os.str();
    }
  }
  if (i != dict.size()) return "the model has " + std::to_string(dict.size()) + " entries, PyTorch's " + std::to_string(i);
  return "";
}

std::string logits_mismatch(nn::Module& model, const std::string& reference, double rtol, int64_t max_size) {
  std::istringstream in(reference);
  std::string header, values;
  while (std::getline(in, header) && std::getline(in, values)) {
    int64_t size = 0, n = 0, classes = 0;
    std::istringstream(header) >> size >> n >> classes;
    if (size > max_size) continue;
    std::vector<float> expected;
    std::istringstream vs(values);
    for (double v = 0; vs >> v;) expected.push_back(static_cast<float>(v));
    const Tensor y = model(zoo_input(n, size)).contiguous();
    if (y.shape() != Shape{n, classes}) return "case " + header + ": output shape " + shape_text(y.shape());
    double max_ref = 0, worst = 0;
    int64_t worst_at = 0;
    const float* out = y.data<float>();
    for (size_t j = 0; j < expected.size(); ++j) {
      max_ref = std::max(max_ref, std::abs(static_cast<double>(expected[j])));
      const double diff = std::abs(static_cast<double>(out[j]) - expected[j]);
      if (!(diff <= worst)) {
        worst = diff;
        worst_at = static_cast<int64_t>(j);
      }
    }
    if (!(worst <= rtol * max_ref)) {
      std::ostringstream os;
      os << "case " << header << ": worst |diff| " << worst << " at " << worst_at << " (ours "
         << out[worst_at] << ", PyTorch's " << expected[static_cast<size_t>(worst_at)] << "), limit "
         << rtol * max_ref;
      return os.str();
    }
  }
  return "";
}

std::string zoo_model_mismatch(const std::string& dir, const std::string& name,
                               const std::function<std::shared_ptr<nn::Module>()>& make, int64_t parameters) {
  manual_seed(0);
  const std::shared_ptr<nn::Module> model = make();
  std::string out;
  if (parameter_count(*model) != parameters)
    out += name + ": " + std::to_string(parameter_count(*model)) + " parameters, torchvision's " +
           std::to_string(parameters) + "\n";
  std::ostringstream printed;
  printed << *model;
  if (printed.str() != zoo_reference(dir, name, "repr")) out += name + ": print(model) differs from torchvision's\n";
  const std::string state = state_dict_mismatch(*model, zoo_reference(dir, name, "state_dict"));
  if (!state.empty()) out += name + ": " + state + "\n";
  apply_bn_rule(*model);
  model->eval();
  const std::string logits = logits_mismatch(*model, zoo_reference(dir, name, "logits"));
  if (!logits.empty()) out += name + ": " + logits + "\n";
  return out;
}

std::vector<std::pair<std::string, Tensor>> output_fields_reference(const std::string& dir, const std::string& name,
                                                                    int64_t n, int64_t classes) {
  std::istringstream in(zoo_reference(dir, name, "train"));
  std::vector<std::pair<std::string, Tensor>> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string field;
    fields >> field;
    std::vector<double> values;
    for (double v = 0; fields >> v;) values.push_back(v);
    out.emplace_back(field, from_vector(values, {n, classes}));
  }
  return out;
}

std::vector<std::string> module_calls(const std::string& graph_text) {
  static const std::regex call(R"(call_module\[target=([^\]]+)\])");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(graph_text.begin(), graph_text.end(), call); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

bool skip_heavy_variants() {
  static const bool skip = [] {
    const char* env = std::getenv("TL_ZOO_ALL_VARIANTS");
    const bool all = env != nullptr && std::string(env) == "1";
    if (!all) std::cerr << "[zoo] the heavy variants are SKIPPED: set TL_ZOO_ALL_VARIANTS=1 to run them\n";
    return !all;
  }();
  return skip;
}

bool reduced_for_sanitizer() {
  static const bool reduced = [] {
    const char* env = std::getenv("TL_SANITIZED_RUN");
    const bool sanitized = env != nullptr && std::string(env) == "1";
    if (sanitized) std::cerr << "[zoo] sanitizer run: the family sweeps keep a few families, the large variants are SKIPPED\n";
    return sanitized;
  }();
  return reduced;
}

}  // namespace tl::testing
