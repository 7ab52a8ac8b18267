// bench/ops_cases.cpp — the torchless side of bench/ops_cases.txt: what each case calls, its operands per
// shape family (as bench/pt_ops.py makes them: same seed, same generator), and the per-call timing rule both use.
#include "bench/ops_cases.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "ops/ops.h"

namespace tl::bench {
namespace {

struct CasesFile {
  std::map<std::string, std::vector<Shape>> shapes;  // family -> shape per size
  std::vector<std::pair<std::string, std::string>> cases;           // (name, family)
};

Shape parse_shape(const std::string& text) {
  Shape shape;
  std::stringstream in(text);
  for (std::string d; std::getline(in, d, 'x');) shape.push_back(parse_number<int64_t>("shape", d, 1));
  return shape;
}

CasesFile read_cases(const std::string& path) {
  std::ifstream in(path);
  TL_CHECK(in, "bench_ops: cannot read the cases file ", path);
  CasesFile file;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::stringstream words(line.substr(0, line.find('#')));
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.size() >= 3 && w[0] == "shape") {
      for (size_t i = 2; i < w.size(); ++i) file.shapes[w[1]].push_back(parse_shape(w[i]));
      TL_CHECK(file.shapes.begin()->second.size() == w.size() - 2, "bench_ops: ", path, ":", number,
               ": every family gives as many sizes as the first, got: ", line);
    } else if (w.size() == 3 && w[0] == "case" && file.shapes.count(w[2])) {
      file.cases.emplace_back(w[1], w[2]);
    } else {
      TL_CHECK(w.empty(), "bench_ops: ", path, ":", number,
               ": expected 'shape FAMILY S1 ... Sn' or 'case NAME FAMILY' (a family given above), got: ", line);
    }
  }
  return file;
}

/// The tensors a family's cases read; which are set depends on the family.
struct Operands {
  Shape shape;
  Tensor a, b, acc, probs, index, mask, mask_a, mask_b, flags, prelu_weight;   // flat
  Tensor a16, b16, ia, ib;                                                    // flat: bfloat16, int64 copies
  Tensor x, matrix, source, weight, bias, mean, rstd, row_index, x16;         // rows (x: also square, image, cube)
  Tensor q, k, plane_weight;                                                  // image
};

Operands operands(const std::string& family, const Shape& shape) {
  manual_seed(0);
  Operands t;
  t.shape = shape;
  if (family == "flat") {
    const int64_t n = shape[0];
    t.a = rand({n});
    t.b = rand({n});
    t.acc = rand({n});
    t.probs = sigmoid(t.a);
    t.index = (t.b * static_cast<double>(n - 1)).to(kLong);
    t.mask = t.b > 0.5;
    t.mask_a = t.a > 0.5;
    t.mask_b = t.b > 0.5;
    t.flags = t.a > 2.0;
    t.prelu_weight = full({1}, 0.25);
    t.a16 = t.a.to(kBFloat16);
    t.b16 = t.b.to(kBFloat16);
    t.ia = (t.a * 2000.0 - 1000.0).to(kLong);  // both signs
    t.ib = (t.b * 20.0 + 1.0).to(kLong);       // never zero
  } else if (family == "rows") {
    const int64_t r = shape[0], c = shape[1];
    t.x = rand({r, c});
    t.matrix = rand({r, c});
    t.source = rand({r, c});
    t.weight = rand({c});
    t.bias = rand({c});
    std::tie(std::ignore, t.mean, t.rstd) = native_layer_norm(t.x, {c}, t.weight, t.bias, 1e-5);
    t.row_index = (rand({r}) * static_cast<double>(r - 1)).to(kLong);
    t.x16 = t.x.to(kBFloat16);
  } else if (family == "square" || family == "cube") {
    t.x = rand(shape);
  } else if (family == "image") {
    t.x = rand(shape);
    t.q = rand(shape);
    t.k = rand(shape);
    t.plane_weight = rand({shape[1]});
  } else {
    TL_CHECK(false, "bench_ops: no operands for shape family '", family, "'");
  }
  return t;
}

using Case = std::function<void(Operands&)>;

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = {
      {"add", [](Operands& t) { (void)(t.a + t.b); }},
      {"add_", [](Operands& t) { t.acc.add_(t.b); }},
      {"sum", [](Operands& t) { (void)t.a.sum(); }},
      {"gather", [](Operands& t) { (void)t.a.gather(0, t.index); }},
      {"scatter_add_", [](Operands& t) { t.acc.scatter_add_(0, t.index, t.b); }},
      {"masked_fill_", [](Operands& t) { t.acc.masked_fill_(t.mask, 0.5); }},
      {"linspace", [](Operands& t) { (void)linspace(0, 1, t.shape[0]); }},
      {"var", [](Operands& t) { (void)t.a.var(); }},
      {"norm", [](Operands& t) { (void)t.a.norm(); }},
      {"any", [](Operands& t) { (void)t.flags.any(); }},
      {"floor", [](Operands& t) { (void)t.a.floor(); }},
      {"round", [](Operands& t) { (void)t.a.round(); }},
      {"sign", [](Operands& t) { (void)t.a.sign(); }},
      {"erf", [](Operands& t) { (void)t.a.erf(); }},
      {"floor_", [](Operands& t) { t.acc.floor_(); }},
      {"isnan", [](Operands& t) { (void)t.a.isnan(); }},
      {"nan_to_num", [](Operands& t) { (void)t.a.nan_to_num(); }},
      {"logical_and", [](Operands& t) { (void)t.mask_a.logical_and(t.mask_b); }},
      {"clamp_min", [](Operands& t) { (void)t.a.clamp_min(0.5); }},
      {"clamp_min_", [](Operands& t) { t.acc.clamp_min_(0.5); }},
      {"fmod", [](Operands& t) { (void)t.a.fmod(t.b); }},
      {"remainder", [](Operands& t) { (void)t.a.remainder(0.3); }},
      {"leaky_relu", [](Operands& t) { (void)leaky_relu(t.a, 0.2); }},
      {"elu", [](Operands& t) { (void)elu(t.a); }},
      {"softplus", [](Operands& t) { (void)softplus(t.a); }},
      {"mish", [](Operands& t) { (void)mish(t.a); }},
      {"hardsigmoid", [](Operands& t) { (void)hardsigmoid(t.a); }},
      {"hardtanh", [](Operands& t) { (void)hardtanh(t.a); }},
      {"prelu", [](Operands& t) { (void)prelu(t.a, t.prelu_weight); }},
      {"lerp", [](Operands& t) { (void)lerp(t.a, t.b, 0.3); }},
      {"addcmul", [](Operands& t) { (void)addcmul(t.acc, t.a, t.b, 0.5); }},
      {"addcdiv", [](Operands& t) { (void)addcdiv(t.acc, t.a, t.b, 0.5); }},
      {"xlogy", [](Operands& t) { (void)t.a.xlogy(t.b); }},
      {"smooth_l1_loss", [](Operands& t) { (void)smooth_l1_loss(t.a, t.b, Reduction::None); }},
      {"smooth_l1_loss_backward",
       [](Operands& t) { (void)smooth_l1_loss_backward(t.b, t.a, t.b, Reduction::None, 1.0); }},
      {"huber_loss", [](Operands& t) { (void)huber_loss(t.a, t.b); }},
      {"binary_cross_entropy", [](Operands& t) { (void)binary_cross_entropy(t.probs, t.probs); }},
      {"bce_with_logits", [](Operands& t) { (void)binary_cross_entropy_with_logits(t.a, t.probs); }},
      {"sin", [](Operands& t) { (void)t.a.sin(); }},
      {"cos", [](Operands& t) { (void)cos(t.a); }},
      {"maximum", [](Operands& t) { (void)maximum(t.a, t.b); }},
      {"div_floor", [](Operands& t) { (void)div(t.a, t.b, "floor"); }},
      {"floor_divide", [](Operands& t) { (void)floor_divide(t.a, t.b); }},
      {"bitwise_and", [](Operands& t) { (void)(t.mask_a & t.mask_b); }},
      {"sin_bf16", [](Operands& t) { (void)t.a16.sin(); }},
      {"div_floor_bf16", [](Operands& t) { (void)div(t.a16, t.b16, "floor"); }},
      {"maximum_bf16", [](Operands& t) { (void)maximum(t.a16, t.b16); }},
      {"div_trunc", [](Operands& t) { (void)div(t.a, t.b, "trunc"); }},
      {"floor_divide_int64", [](Operands& t) { (void)floor_divide(t.ia, t.ib); }},
      {"bitwise_xor_int64", [](Operands& t) { (void)(t.ia ^ t.ib); }},
      {"index_add_", [](Operands& t) { t.matrix.index_add_(0, t.row_index, t.source); }},
      {"std", [](Operands& t) { (void)t.x.std(1); }},
      {"vector_norm_inf", [](Operands& t) { (void)linalg_vector_norm(t.x, INFINITY, 1); }},
      {"layer_norm", [](Operands& t) { (void)layer_norm(t.x, {t.shape[1]}, t.weight, t.bias); }},
      {"layer_norm_backward",
       [](Operands& t) {
         (void)native_layer_norm_backward(t.x, t.x, {t.shape[1]}, t.mean, t.rstd, t.weight, t.bias,
                                          {true, true, true});
       }},
      {"embedding", [](Operands& t) { (void)embedding(t.matrix, t.row_index); }},
      {"embedding_backward",
       [](Operands& t) { (void)embedding_dense_backward(t.source, t.row_index, t.shape[0], -1, false); }},
      {"cumsum", [](Operands& t) { (void)t.x.cumsum(1); }},
      {"cumprod", [](Operands& t) { (void)t.x.cumprod(1); }},
      {"sort", [](Operands& t) { (void)t.x.sort(1); }},
      {"topk", [](Operands& t) { (void)t.x.topk(8); }},
      {"kthvalue", [](Operands& t) { (void)t.x.kthvalue(t.shape[1] / 2); }},
      {"unique", [](Operands& t) { (void)_unique2(t.x, true, true, true); }},
      {"argmin", [](Operands& t) { (void)t.x.argmin(1); }},
      {"amax", [](Operands& t) { (void)t.x.amax(1); }},
      {"prod", [](Operands& t) { (void)t.x.prod(1); }},
      {"logsumexp", [](Operands& t) { (void)t.x.logsumexp(1); }},
      {"softmax", [](Operands& t) { (void)t.x.softmax(1); }},
      {"log_softmax", [](Operands& t) { (void)t.x.log_softmax(1); }},
      {"amin", [](Operands& t) { (void)t.x.amin(1); }},
      {"amax_bf16", [](Operands& t) { (void)t.x16.amax(1); }},
      {"logsumexp_bf16", [](Operands& t) { (void)t.x16.logsumexp(1); }},
      {"maximum_broadcast", [](Operands& t) { (void)maximum(t.x, t.weight); }},
      {"div_floor_broadcast", [](Operands& t) { (void)div(t.x, t.weight, "floor"); }},
      {"sin_strided", [](Operands& t) { (void)t.x.t().sin(); }},
      {"sum_mid", [](Operands& t) { (void)t.x.sum(1); }},
      {"argmin_mid", [](Operands& t) { (void)t.x.argmin(1); }},
      {"amax_mid", [](Operands& t) { (void)t.x.amax(1); }},
      {"prod_mid", [](Operands& t) { (void)t.x.prod(1); }},
      {"logsumexp_mid", [](Operands& t) { (void)t.x.logsumexp(1); }},
      {"flip", [](Operands& t) { (void)t.x.flip({0, 1}); }},
      {"roll", [](Operands& t) { (void)t.x.roll({3, 5}, {0, 1}); }},
      {"repeat", [](Operands& t) { (void)t.x.repeat({2, 1}); }},
      {"tile", [](Operands& t) { (void)tile(t.x, {2, 1}); }},
      {"triu", [](Operands& t) { (void)t.x.triu(); }},
      {"split", [](Operands& t) { (void)t.x.split(1); }},
      {"unbind", [](Operands& t) { (void)t.x.unbind(); }},
      {"constant_pad_nd", [](Operands& t) { (void)constant_pad_nd(t.x, {1, 1, 1, 1}); }},
      {"reflection_pad2d", [](Operands& t) { (void)reflection_pad2d(t.x, {1, 1, 1, 1}); }},
      {"upsample_nearest2d",
       [](Operands& t) { (void)upsample_nearest2d(t.x, {2 * t.shape[2], 2 * t.shape[3]}); }},
      {"upsample_bilinear2d",
       [](Operands& t) { (void)upsample_bilinear2d(t.x, {2 * t.shape[2], 2 * t.shape[3]}, false); }},
      {"im2col", [](Operands& t) { (void)im2col(t.x, {3, 3}, {1, 1}, {1, 1}, {1, 1}); }},
      {"adaptive_max_pool2d", [](Operands& t) { (void)adaptive_max_pool2d(t.x, {7, 7}); }},
      {"group_norm", [](Operands& t) { (void)group_norm(t.x, 4, t.plane_weight, t.plane_weight); }},
      {"einsum", [](Operands& t) { (void)einsum("bhqd,bhkd->bhqk", {t.q, t.k}); }},
  };
  return table;
}

/// Per-call seconds of `runs` samples, each of as many calls as take at least `sample_s` (doubling from 1 after
/// 3 untimed calls), and that call count: bench/pt_ops.py's rule.
std::pair<std::vector<double>, int64_t> time_case(const std::function<void()>& f, int runs, double sample_s) {
  using clock = std::chrono::steady_clock;
  const auto seconds_of = [&](int64_t calls) {
    const auto start = clock::now();
    for (int64_t i = 0; i < calls; ++i) f();
    return std::chrono::duration<double>(clock::now() - start).count();
  };
  for (int i = 0; i < 3; ++i) f();
  int64_t calls = 1;
  while (seconds_of(calls) < sample_s) calls *= 2;
  std::vector<double> samples;
  for (int r = 0; r < runs; ++r) samples.push_back(seconds_of(calls) / static_cast<double>(calls));
  return {samples, calls};
}

/// The 1-minute load average now (the machine is shared: each RESULT line says what it ran under).
double load_average() {
  double load = -1;
  std::ifstream("/proc/loadavg") >> load;
  return load;
}

}  // namespace

void run_op_cases(const std::string& path, int64_t numel, int runs, double sample_ms, const std::string& only) {
  CasesFile file = read_cases(path);
  std::string unknown;
  for (const auto& [name, family] : file.cases)
    if (!cases().count(name)) unknown += (unknown.empty() ? "" : ", ") + std::string(name);
  TL_CHECK(unknown.empty(), "bench_ops: ", path, " names cases this side does not know: ", unknown);
  if (!only.empty()) {
    std::vector<std::pair<std::string, std::string>> chosen;
    std::stringstream names(only);
    for (std::string name; std::getline(names, name, ',');) {
      const auto it = std::find_if(file.cases.begin(), file.cases.end(), [&](const auto& c) { return c.first == name; });
      TL_CHECK(it != file.cases.end(), "bench_ops: --ops names a case ", path, " does not have: ", name);
      chosen.push_back(*it);
    }
    file.cases = std::move(chosen);
  }
  TL_CHECK(!file.shapes.empty(), "bench_ops: ", path, " gives no shapes");
  const auto& first = file.shapes.begin()->second;
  const auto column = std::find_if(first.begin(), first.end(), [&](const auto& s) { return numel_of(s) == numel; });
  TL_CHECK(column != first.end(), "bench_ops: --numel ", numel, " is not a size of ", path);
  const size_t size = static_cast<size_t>(column - first.begin());
  std::map<std::string, Operands> made;
  for (const auto& [name, family] : file.cases) {
    const Shape& shape = file.shapes.at(family)[size];
    TL_CHECK(numel_of(shape) == numel, "bench_ops: ", path, ": family ", family, " has ", numel_of(shape),
             " elements at the size of ", numel);
    if (!made.count(family)) made.emplace(family, operands(family, shape));
    Operands& t = made.at(family);
    const Case& run = cases().at(name);
    auto [seconds, calls] = time_case([&] { run(t); }, runs, sample_ms / 1e3);
    std::vector<double> microseconds;
    for (double s : seconds) microseconds.push_back(s * 1e6);
    const Timing us = summarize(std::move(microseconds));  // its *_ms fields hold microseconds here
    std::string dims;
    for (int64_t d : shape) {
      if (!dims.empty()) dims += 'x';
      dims += std::to_string(d);
    }
    std::printf("RESULT bench=ops impl=torchless op=%s numel=%lld shape=%s threads=%d calls=%lld median_us=%.3f "
                "min_us=%.3f max_us=%.3f load1=%.2f\n",
                name.c_str(), static_cast<long long>(numel), dims.c_str(), get_num_threads(),
                static_cast<long long>(calls), us.median_ms, us.min_ms, us.max_ms, load_average());
    std::fflush(stdout);
  }
}

}  // namespace tl::bench
