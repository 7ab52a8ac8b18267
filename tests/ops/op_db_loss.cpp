// tests/ops/op_db_loss.cpp — the op_db samples of the softmax and loss rows (op_db.h); x plays the
// logits or log-probabilities, so its special values reach every result. The loss samples build
// targets for x's (1, 2, 4, 4) shape, so they are not shape-generic. gen_special_values.py's SAMPLES
// mirror these, sample by sample.
#include "ops/ops.h"
#include "tests/ops/op_db.h"

namespace tl::testing {
namespace {

TensorList list(const Tensor& t) { return {t}; }
TensorList pair(const std::tuple<Tensor, Tensor>& p) { return {std::get<0>(p), std::get<1>(p)}; }
Tensor rows(const Tensor& x) { return x.reshape({8, 4}); }  // eight rows of four classes
/// Targets for rows(x): one ignored (-100), every class present.
Tensor targets() { return from_vector<int64_t>({0, 3, -100, 1, 2, 3, 0, 1}, {8}); }
/// Targets for x as (N=1, C=2, 4, 4).
Tensor targets_nd() {
  return from_vector<int64_t>({0, 1, 1, 0, -100, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0}, {1, 4, 4});
}
Tensor class_weight(const Tensor& y) { return y.flatten().slice(0, 0, 4).contiguous(); }

template <Tensor (*F)(const Tensor&, int64_t, bool)>
Samples softmax_primitive() {
  return {Sample{"dim1", [](const Tensor& x, const Tensor&) { return list(F(x, 1, false)); }}.generic(),
          Sample{"last", [](const Tensor& x, const Tensor&) { return list(F(x, -1, false)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(F(x.to(DType::Float64), 3, false)); }}};
}

template <Tensor (*F)(const Tensor&, const Tensor&, int64_t, DType), Tensor (*Forward)(const Tensor&, int64_t, bool)>
Samples softmax_backward() {
  return {Sample{"grad", [](const Tensor& x, const Tensor& y) {
            return list(F(x, Forward(y, 1, false), 1, DType::Float32));
          }}.sums().generic(),
          Sample{"output", [](const Tensor& x, const Tensor& y) {
            return list(F(y, Forward(x, 3, false), 3, DType::Float32));
          }}.sums().generic()};
}

template <Tensor (*F)(const Tensor&, int64_t, std::optional<DType>),
          Tensor (Tensor::*Method)(int64_t, std::optional<DType>) const>
Samples softmax_composite() {
  return {Sample{"dim1", [](const Tensor& x, const Tensor&) { return list(F(x, 1, std::nullopt)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(F(x, 2, DType::Float64)); }}.generic(),
          Sample{"method", [](const Tensor& x, const Tensor&) { return list((x.*Method)(3, std::nullopt)); }}.generic()};
}

}  // namespace

Samples opinfo__softmax() { return softmax_primitive<_softmax>(); }
Samples opinfo__log_softmax() { return softmax_primitive<_log_softmax>(); }
Samples opinfo__softmax_backward_data() { return softmax_backward<_softmax_backward_data, _softmax>(); }
Samples opinfo__log_softmax_backward_data() { return softmax_backward<_log_softmax_backward_data, _log_softmax>(); }
Samples opinfo_softmax() { return softmax_composite<softmax, &Tensor::softmax>(); }
Samples opinfo_log_softmax() { return softmax_composite<log_softmax, &Tensor::log_softmax>(); }

Samples opinfo_nll_loss_forward() {
  return {Sample{"mean", [](const Tensor& x, const Tensor&) {
            return pair(nll_loss_forward(rows(x), targets(), {}, Reduction::Mean, -100));
          }},
          Sample{"weight_none", [](const Tensor& x, const Tensor& y) {
            return pair(nll_loss_forward(rows(x), targets(), class_weight(y), Reduction::None, -100));
          }},
          Sample{"weight_sum", [](const Tensor& x, const Tensor& y) {
            return pair(nll_loss_forward(rows(x), targets(), class_weight(y), Reduction::Sum, -100));
          }}};
}
Samples opinfo_nll_loss_backward() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            const Tensor g = scalar_tensor(0.5, DType::Float32), total = scalar_tensor(2.5, DType::Float32);
            return list(nll_loss_backward(g, rows(x), targets(), class_weight(y), Reduction::Mean, -100, total));
          }},
          Sample{"none", [](const Tensor& x, const Tensor&) {
            const Tensor g = x.flatten().slice(0, 0, 8), total = scalar_tensor(0.0, DType::Float32);
            return list(nll_loss_backward(g, rows(x), targets(), {}, Reduction::None, -100, total));
          }}};
}
Samples opinfo_nll_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor&) { return list(nll_loss(rows(x), targets())); }},
          Sample{"nd_none", [](const Tensor& x, const Tensor&) {
            return list(nll_loss(x, targets_nd(), {}, Reduction::None));
          }},
          Sample{"nd_weight_mean", [](const Tensor& x, const Tensor& y) {
            return list(nll_loss(x, targets_nd(), y.flatten().slice(0, 0, 2).contiguous()));
          }}};
}
Samples opinfo_cross_entropy_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor&) { return list(cross_entropy_loss(rows(x), targets())); }},
          Sample{"smoothing_weight", [](const Tensor& x, const Tensor& y) {
            return list(cross_entropy_loss(rows(x), targets(), class_weight(y), Reduction::Mean, -100, 0.2));
          }},
          Sample{"nd_smoothing_none", [](const Tensor& x, const Tensor&) {
            return list(cross_entropy_loss(x, targets_nd(), {}, Reduction::None, -100, 0.1));
          }},
          Sample{"probabilities", [](const Tensor& x, const Tensor& y) {
            return list(cross_entropy_loss(rows(x), softmax(rows(y), 1)));
          }}};
}
Samples opinfo_mse_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) { return list(mse_loss(x, y)); }},
          Sample{"none", [](const Tensor& x, const Tensor& y) { return list(mse_loss(y, x, Reduction::None)); }}.generic(),
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(mse_loss(x.to(DType::Float64), y.to(DType::Float64), Reduction::Sum));
          }}};
}
Samples opinfo_mse_loss_backward() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(mse_loss_backward(scalar_tensor(0.5, DType::Float32), x, y, Reduction::Mean));
          }},
          Sample{"none", [](const Tensor& x, const Tensor& y) {
            return list(mse_loss_backward(y, x, y, Reduction::None));
          }}.generic()};
}

}  // namespace tl::testing
