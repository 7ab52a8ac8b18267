// tests/ops/op_db_reduce.cpp — the op_db samples (op_db.h) of any / all, the moments and norms, sorting and
// scans, baddbmm and outer. topk and kthvalue give their values only: with ties PyTorch leaves their indices
// unspecified (tests/ops/test_sort.cpp checks that ours point at the values). gen_special_values.py's SAMPLES
// mirror these, sample by sample.
#include <cmath>

#include "ops/ops.h"
#include "tests/ops/op_db.h"

namespace tl::testing {
namespace {

constexpr const char* kViewsBatch = "views x as a batch of matrices, which PyTorch refuses too for a non-contiguous x";

TensorList list(const Tensor& t) { return {t}; }
TensorList pair(const std::tuple<Tensor, Tensor>& p) { return {std::get<0>(p), std::get<1>(p)}; }

template <Tensor (*F)(const Tensor&), Tensor (Tensor::*Method)(int64_t, bool) const>
Samples logical() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(F(x)); }},
          Sample{"dim", [](const Tensor& x, const Tensor&) { return list((x.*Method)(3, false)); }}.generic()};
}

// var or std: over everything, along one dim (biased, kept), over two dims with correction 2.
template <Tensor (*F)(const Tensor&), Tensor (*Dims)(const Tensor&, std::initializer_list<int64_t>, bool, bool,
                                                     std::optional<int64_t>),
          Tensor (Tensor::*Method)(int64_t, bool, bool, std::optional<int64_t>) const>
Samples moments() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(F(x)); }}.sums(),
          Sample{"dim", [](const Tensor& x, const Tensor&) { return list((x.*Method)(3, false, true, std::nullopt)); }}
              .sums().generic(),
          Sample{"correction", [](const Tensor& x, const Tensor&) { return list(Dims(x, {2, 3}, true, false, 2)); }}.sums()};
}

}  // namespace

Samples opinfo_any() { return logical<any, &Tensor::any>(); }
Samples opinfo_all() { return logical<all, &Tensor::all>(); }
Samples opinfo_argmin() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(argmin(x)); }},
          Sample{"dim", [](const Tensor& x, const Tensor&) { return list(x.argmin(3)); }}.generic()};
}
// amax / amin: over everything, one dim, two dims kept.
#define TL_AMAX_OPINFO(name)                                                                                    \
  Samples opinfo_##name() {                                                                                     \
    return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(name(x)); }},                        \
            Sample{"dim", [](const Tensor& x, const Tensor&) { return list(x.name(3)); }}.generic(),             \
            Sample{"dims", [](const Tensor& x, const Tensor&) { return list(name(x, {2, 3}, true)); }}.generic()}; \
  }
TL_AMAX_OPINFO(amax)
TL_AMAX_OPINFO(amin)
#undef TL_AMAX_OPINFO
Samples opinfo_prod() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(prod(x)); }}.sums(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(x.prod(DType::Float64)); }}.sums()};
}
Samples opinfo_prod_dim_int() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(prod(x, 3)); }}.sums().generic(),
          Sample{"keepdim", [](const Tensor& x, const Tensor&) { return list(x.prod(2, true)); }}.sums()};
}
Samples opinfo_logsumexp() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(logsumexp(x, 3)); }}.sums().generic(),
          Sample{"dims", [](const Tensor& x, const Tensor&) { return list(x.logsumexp({2, 3}, true)); }}.sums()};
}
Samples opinfo_var() { return moments<var, var, &Tensor::var>(); }
Samples opinfo_std() { return moments<tl::std, tl::std, &Tensor::std>(); }
Samples opinfo_var_mean() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return pair(var_mean(x, 3)); }}.sums().generic()};
}
Samples opinfo_std_mean() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return pair(std_mean(x, 3)); }}.sums().generic()};
}
Samples opinfo_linalg_vector_norm() {
  return {Sample{"2", [](const Tensor& x, const Tensor&) { return list(linalg_vector_norm(x)); }}.sums(),
          Sample{"1_dim", [](const Tensor& x, const Tensor&) { return list(linalg_vector_norm(x, 1, 3)); }}.sums().generic(),
          Sample{"inf_dims", [](const Tensor& x, const Tensor&) {
            return list(linalg_vector_norm(x, INFINITY, {2, 3}, true));
          }},
          Sample{"3_dim", [](const Tensor& x, const Tensor&) { return list(linalg_vector_norm(x, 3, 3)); }}.sums(),
          Sample{"0", [](const Tensor& x, const Tensor&) { return list(linalg_vector_norm(x, 0)); }}};
}
Samples opinfo_norm() {
  return {Sample{"2", [](const Tensor& x, const Tensor&) { return list(x.norm()); }}.sums(),
          Sample{"1_dim", [](const Tensor& x, const Tensor&) { return list(x.norm(1, 3)); }}.sums().generic(),
          Sample{"fro_dims", [](const Tensor& x, const Tensor&) { return list(norm(x, 2, {2, 3})); }}.sums()};
}

Samples opinfo_sort() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) {
            auto [values, indices] = sort(x, 3);
            return TensorList{values, indices};
          }}.generic(),
          Sample{"descending", [](const Tensor& x, const Tensor&) {
            const auto r = x.sort(2, true);
            return TensorList{r.values, r.indices};
          }}.generic()};
}
Samples opinfo_argsort() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(argsort(x, 3)); }}.generic(),
          Sample{"descending", [](const Tensor& x, const Tensor&) { return list(x.argsort(2, true)); }}.generic()};
}
// + 0.0: -0.0 and 0.0 tie, and which of the two PyTorch selects is unspecified (0.0 + -0.0 is 0.0).
Samples opinfo_topk() {
  return {Sample{"largest", [](const Tensor& x, const Tensor&) { return list(topk(x, 3, 3).values + 0.0); }}.generic(),
          Sample{"smallest", [](const Tensor& x, const Tensor&) { return list(x.topk(2, 2, false).values + 0.0); }}
              .generic()};
}
Samples opinfo_kthvalue() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(kthvalue(x, 2, 3).values + 0.0); }}.generic(),
          Sample{"keepdim", [](const Tensor& x, const Tensor&) { return list(x.kthvalue(3, 2, true).values + 0.0); }}
              .generic()};
}
TensorList all3(const std::tuple<Tensor, Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t), std::get<2>(t)}; }
Samples opinfo__unique2() {
  return {Sample{"sorted", [](const Tensor& x, const Tensor&) { return all3(_unique2(x, true, true, true)); }}.generic(),
          Sample{"values", [](const Tensor& x, const Tensor&) { return all3(_unique2(x)); }}.generic()};
}
Samples opinfo_unique_dim() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return all3(unique_dim(x, 2, true, true, true)); }}.generic(),
          Sample{"bool", [](const Tensor& x, const Tensor&) {
            return all3(unique_dim(x.gt(Scalar(0.0)), 3, true, true, true));
          }}};
}
Samples opinfo_unique_consecutive() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) {
            return all3(unique_consecutive(x.gt(Scalar(0.0)), true, true));
          }}.generic(),
          Sample{"dim", [](const Tensor& x, const Tensor&) {
            return all3(unique_consecutive(x.gt(Scalar(0.0)), true, true, 3));
          }}};
}
Samples opinfo_value_selecting_reduction_backward() {
  return {Sample{"sort", [](const Tensor& x, const Tensor& y) {
            return list(value_selecting_reduction_backward(y, 3, sort(x, 3).indices, x.shape(), true));
          }}.generic(),
          Sample{"kthvalue", [](const Tensor& x, const Tensor& y) {
            const Tensor indices = argsort(x, 2).select(2, 1);
            return list(value_selecting_reduction_backward(y.select(2, 0), 2, indices, x.shape(), false));
          }}};
}
Samples opinfo_cumsum() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(cumsum(x, 3)); }}.sums().generic(),
          Sample{"dtype", [](const Tensor& x, const Tensor&) { return list(x.cumsum(2, DType::Float64)); }}.sums()};
}
Samples opinfo_cumprod() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(cumprod(x, 3)); }}.sums().generic(),
          Sample{"dtype", [](const Tensor& x, const Tensor&) { return list(x.cumprod(2, DType::Float64)); }}.sums()};
}

Samples opinfo_baddbmm() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(baddbmm(y.view({2, 4, 4}), x.view({2, 4, 4}), y.view({2, 4, 4}), 0.5, 2));
          }}.sums().no_noncontiguous(kViewsBatch),
          Sample{"self", [](const Tensor& x, const Tensor& y) {
            return list(y.view({2, 4, 4}).baddbmm(x.view({2, 4, 4}).transpose(1, 2), y.view({2, 4, 4})));
          }}.sums().no_noncontiguous(kViewsBatch)};
}
Samples opinfo_outer() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(outer(x.flatten().slice(0, 0, 6), y.flatten().slice(0, 0, 5)));
          }}.generic()};
}

}  // namespace tl::testing
