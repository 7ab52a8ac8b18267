// tests/ops/op_db_loss.cpp — the op_db samples of the softmax, loss and distance rows (op_db.h); x plays
// the logits, log-probabilities, probabilities (through sigmoid) or embeddings, so its special values reach
// every result. The loss samples build
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

/// y (0.5 ... 2.0) mapped into [0, 1]: BCE targets.
Tensor probabilities(const Tensor& y) { return (y - 0.5) / 1.5; }
/// +1 / -1 targets for rows(x).
Tensor signs() { return from_vector<float>({1, -1, -1, 1, 1, -1, 1, -1}, {8}); }
Tensor to64(const Tensor& t) { return t.to(DType::Float64); }

/// The samples of a loss over (self, target) of one shape with a float option (beta, delta), and its backward.
template <Tensor (*Loss)(const Tensor&, const Tensor&, int64_t, double)>
Samples pointwise_loss(double option) {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) { return list(Loss(x, y, Reduction::Mean, 1.0)); }},
          Sample{"none", [option](const Tensor& x, const Tensor& y) {
            return list(Loss(y, x, Reduction::None, option));
          }}.generic(),
          Sample{"sum_float64", [option](const Tensor& x, const Tensor& y) {
            return list(Loss(to64(x), to64(y), Reduction::Sum, option));
          }}};
}

template <Tensor (*Backward)(const Tensor&, const Tensor&, const Tensor&, int64_t, double)>
Samples pointwise_loss_backward(double option) {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(Backward(scalar_tensor(0.5, DType::Float32), x, y, Reduction::Mean, 1.0));
          }},
          Sample{"none", [option](const Tensor& x, const Tensor& y) {
            return list(Backward(y, x, y, Reduction::None, option));
          }}.generic()};
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

Samples opinfo_l1_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) { return list(l1_loss(x, y)); }},
          Sample{"none", [](const Tensor& x, const Tensor& y) { return list(l1_loss(y, x, Reduction::None)); }}.generic(),
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(l1_loss(to64(x), to64(y), Reduction::Sum));
          }}};
}
Samples opinfo_smooth_l1_loss() { return pointwise_loss<smooth_l1_loss>(0.5); }
Samples opinfo_smooth_l1_loss_backward() { return pointwise_loss_backward<smooth_l1_loss_backward>(0.5); }
Samples opinfo_huber_loss() { return pointwise_loss<huber_loss>(0.75); }
Samples opinfo_huber_loss_backward() { return pointwise_loss_backward<huber_loss_backward>(0.75); }

Samples opinfo_binary_cross_entropy() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy(sigmoid(x), probabilities(y)));
          }},
          Sample{"weight_none", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy(sigmoid(x), probabilities(y), class_weight(y), Reduction::None));
          }},
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy(sigmoid(to64(x)), probabilities(to64(y)), {}, Reduction::Sum));
          }}};
}
Samples opinfo_binary_cross_entropy_backward() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy_backward(scalar_tensor(0.5, DType::Float32), sigmoid(x), probabilities(y),
                                                      {}, Reduction::Mean));
          }},
          Sample{"weight_none", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy_backward(y, sigmoid(x), probabilities(y), class_weight(y), Reduction::None));
          }}};
}
Samples opinfo_binary_cross_entropy_with_logits() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy_with_logits(x, probabilities(y)));
          }},
          Sample{"pos_weight_none", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy_with_logits(x, probabilities(y), {}, class_weight(y), Reduction::None));
          }},
          Sample{"weight_sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(binary_cross_entropy_with_logits(to64(x), probabilities(to64(y)), to64(class_weight(y)),
                                                         to64(class_weight(y)) * 2, Reduction::Sum));
          }}};
}
Samples opinfo_xlogy() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(xlogy(x, y)); }}.generic(),
          Sample{"other", [](const Tensor& x, const Tensor& y) { return list(y.xlogy(x)); }}.generic(),
          Sample{"number", [](const Tensor& x, const Tensor&) { return list(xlogy(x, 2.5)); }}.generic()};
}
Samples opinfo_kl_div() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) { return list(kl_div(x, y)); }},
          Sample{"log_target_none", [](const Tensor& x, const Tensor& y) {
            return list(kl_div(y, x, Reduction::None, true));
          }}.generic(),
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(kl_div(to64(x), to64(y), Reduction::Sum));
          }}};
}
Samples opinfo_cosine_embedding_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(cosine_embedding_loss(rows(x), rows(y), signs()));
          }},
          Sample{"margin_none", [](const Tensor& x, const Tensor& y) {
            return list(cosine_embedding_loss(rows(y), rows(x), signs(), 0.25, Reduction::None));
          }},
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(cosine_embedding_loss(rows(to64(x)), rows(to64(y)), to64(signs()), -0.5, Reduction::Sum));
          }}};
}
Samples opinfo_margin_ranking_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(margin_ranking_loss(rows(x).select(1, 0), rows(y).select(1, 1), signs()));
          }},
          Sample{"margin_none", [](const Tensor& x, const Tensor& y) {
            return list(margin_ranking_loss(rows(y).select(1, 2), rows(x).select(1, 3), signs(), 0.5, Reduction::None));
          }},
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(margin_ranking_loss(rows(to64(x)).select(1, 1), rows(to64(y)).select(1, 0), to64(signs()), 0.25,
                                            Reduction::Sum));
          }}};
}
Samples opinfo_triplet_margin_loss() {
  return {Sample{"mean", [](const Tensor& x, const Tensor& y) {
            return list(triplet_margin_loss(rows(x), rows(y), rows(y).flip({0})));
          }},
          Sample{"swap_p1_none", [](const Tensor& x, const Tensor& y) {
            return list(triplet_margin_loss(rows(y), rows(x), rows(y).flip({1}), 0.5, 1.0, 1e-6, true, Reduction::None));
          }},
          Sample{"sum_float64", [](const Tensor& x, const Tensor& y) {
            return list(triplet_margin_loss(rows(to64(x)), rows(to64(y)).flip({0}), rows(to64(y)), 2.0, 3.0, 1e-3, true,
                                            Reduction::Sum));
          }}};
}
Samples opinfo_pairwise_distance() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(pairwise_distance(x, y)); }}.generic(),
          Sample{"p1_keepdim", [](const Tensor& x, const Tensor& y) {
            return list(pairwise_distance(y, x, 1.0, 0.0, true));
          }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(pairwise_distance(to64(x), to64(y), 3.0, 1e-3));
          }}.generic()};
}
Samples opinfo_cosine_similarity() {
  return {Sample{"dim1", [](const Tensor& x, const Tensor& y) { return list(cosine_similarity(x, y)); }}.sums().generic(),
          Sample{"last", [](const Tensor& x, const Tensor& y) { return list(cosine_similarity(y, x, -1, 0.5)); }}.sums().generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(cosine_similarity(to64(x), to64(y), 2));
          }}.sums()};
}
Samples opinfo_one_hot() {
  return {Sample{"infer", [](const Tensor& x, const Tensor&) { return list(one_hot((x.abs() * 2).to(DType::Int64))); }},
          Sample{"num_classes", [](const Tensor& x, const Tensor&) {
            return list(one_hot((x.abs() * 2).to(DType::Int64), 20));
          }}.generic()};
}

}  // namespace tl::testing
