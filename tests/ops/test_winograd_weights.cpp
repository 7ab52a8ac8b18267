// tests/ops/test_winograd_weights.cpp — our Winograd weight packing (the F(2x2, 3x3) and F(4x4, 3x3)
// layouts) against oneDNN's own reorder into the same layout, value by value, and convolutions through it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/winograd_weights.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

/// The weights layout oneDNN's Winograd conv wants for input (n, c_in, h, w) blocked, 3x3 weight,
/// padding 1 — what mkldnn_convolution asks for — or the direct conv's when it has no Winograd kernel.
dnnl::memory::desc winograd_layout(int64_t c_out, int64_t c_in, int64_t n, int64_t h, int64_t w) {
  using dnnl::memory;
  using Conv = dnnl::convolution_forward;
  const auto f32 = memory::data_type::f32;
  const memory::desc src({n, c_in, h, w}, f32, memory::format_tag::nChw16c);
  const memory::desc dst({n, c_out, h, w}, f32, memory::format_tag::nChw16c);
  const memory::desc weights({c_out, c_in, 3, 3}, f32, memory::format_tag::any);
  for (dnnl::algorithm algorithm : {dnnl::algorithm::convolution_winograd, dnnl::algorithm::convolution_direct}) {
    try {
      const Conv::desc desc(dnnl::prop_kind::forward_inference, algorithm, src, weights, dst, {1, 1}, {1, 1}, {1, 1});
      return Conv::primitive_desc(desc, onednn::default_attr(), onednn::engine()).weights_desc();
    } catch (const dnnl::error& e) {
      if (e.status != dnnl_unimplemented) throw;
    }
  }
  return {};
}

/// oneDNN's own reorder of the dense weight into `packed`: the reference.
Tensor onednn_reorder(const Tensor& w, const dnnl::memory::desc& packed) {
  Tensor out = Tensor::allocate({static_cast<int64_t>(packed.get_size() / sizeof(float))}, DType::Float32);
  const dnnl::memory::desc dense({w.size(0), w.size(1), 3, 3}, dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::oihw);
  dnnl::memory from(dense, onednn::engine(), w.data<float>()), to(packed, onednn::engine(), out.data<float>());
  dnnl::reorder(from, to).execute(onednn::stream(), from, to);
  onednn::stream().wait();
  return out;
}

/// A Winograd weights layout for a (c_out, c_in, 3, 3) weight written out field by field, as oneDNN's
/// convolutions describe theirs: sweeps the blockings whatever oneDNN's heuristics pick on this CPU.
dnnl::memory::desc wino_layout(dnnl_wino_memory_format_t format, int64_t c_out, int64_t c_in, int ic_block,
                               int oc2_block, int ic2_block) {
  dnnl_memory_desc_t md{};
  md.ndims = 4;
  const dnnl_dims_t dims{c_out, c_in, 3, 3};
  std::copy_n(dims, 4, md.dims);
  std::copy_n(dims, 4, md.padded_dims);
  md.data_type = dnnl_f32;
  md.format_kind = dnnl_format_kind_wino;
  dnnl_wino_desc_t& w = md.format_desc.wino_desc;
  w.wino_format = format;
  w.r = 3;
  w.alpha = format == dnnl_wino_wei_OBaaIBOIio ? 6 : 4;
  w.oc_block = 16;
  w.ic_block = ic_block;
  w.oc2_block = oc2_block;
  w.ic2_block = ic2_block;
  // Channels padded up to whole blocks, as oneDNN pads them.
  w.oc = static_cast<int>((c_out + 16 * oc2_block - 1) / (16 * oc2_block) * 16 * oc2_block);
  const int ic_chunk = ic_block * (format == dnnl_wino_wei_OBaaIBOIio ? ic2_block : 1);
  w.ic = static_cast<int>((c_in + ic_chunk - 1) / ic_chunk * ic_chunk);
  w.adj_scale = 1.0f;
  w.size = sizeof(float) * w.alpha * w.alpha * w.oc * w.ic;
  return dnnl::memory::desc(md);
}

/// Packs w into `layout` both ways and compares them value by value: the transforms differ at most by
/// rounding, relative to the largest value (oneDNN's reorder may reassociate its three-term sums).
void check_against_onednn(const Tensor& w, const dnnl::memory::desc& layout) {
  REQUIRE(onednn::packs_winograd_weights(layout, w.shape()));
  const Tensor expected = onednn_reorder(w, layout);
  Tensor ours = full(expected.shape(), std::nanf(""));  // every value must be written
  onednn::pack_winograd_weights(w, layout, ours.data<float>());
  const double largest = abs(expected).max().item<double>();
  CHECK_TENSOR_CLOSE(ours, expected, 0.0, 1e-6 * largest);
}

struct Case {
  int64_t c_out, c_in;
};
// Channel counts off the 16-blocks (24 x 40, 48 x 16) exercise the zero padding.
constexpr Case kCases[] = {{64, 64}, {128, 64}, {64, 128}, {512, 512}, {24, 40}, {48, 16}};

TEST_CASE("pack_winograd_weights: oneDNN's own reorder's values in each fp32 layout and blocking") {
  manual_seed(1);
  struct Blocking {
    int ic_block, oc2_block, ic2_block;
  };
  for (dnnl_wino_memory_format_t format : {dnnl_wino_wei_aaOio, dnnl_wino_wei_aaOBiOo, dnnl_wino_wei_OBaaIBOIio})
    for (const Case& c : {Case{64, 64}, Case{24, 40}, Case{48, 16}})
      for (const Blocking& b : {Blocking{16, 1, 1}, Blocking{16, 2, 4}, Blocking{8, 3, 2}}) {
        CAPTURE(int(format));
        CAPTURE(c.c_out);
        CAPTURE(c.c_in);
        CAPTURE(b.ic_block);
        CAPTURE(b.oc2_block);
        CAPTURE(b.ic2_block);
        check_against_onednn(randn({c.c_out, c.c_in, 3, 3}), wino_layout(format, c.c_out, c.c_in, b.ic_block,
                                                                         b.oc2_block, b.ic2_block));
      }
}

TEST_CASE("pack_winograd_weights: oneDNN's own reorder's values in the layouts its convolutions pick") {
  manual_seed(2);
  for (const Case& c : kCases)
    for (const Shape& input : {Shape{1, 56}, Shape{1, 7}, Shape{2, 12}, Shape{10, 13}}) {
      CAPTURE(c.c_out);
      CAPTURE(c.c_in);
      CAPTURE(input);
      const dnnl::memory::desc layout = winograd_layout(c.c_out, c.c_in, input[0], input[1], input[1]);
      if (layout.data.format_kind != dnnl_format_kind_wino) continue;  // no Winograd kernel on this CPU
      check_against_onednn(randn({c.c_out, c.c_in, 3, 3}), layout);
    }
}

TEST_CASE("mkldnn_convolution: Winograd weights packed by mkldnn_reorder_conv2d_weight match conv2d") {
  manual_seed(3);
  for (const Case& c : kCases)
    for (int64_t n : {1, 2}) {
      CAPTURE(c.c_out);
      CAPTURE(c.c_in);
      CAPTURE(n);
      const Tensor x = randn({n, c.c_in, 12, 10}), w = randn({c.c_out, c.c_in, 3, 3}) * 0.1, b = randn({c.c_out});
      const Tensor blocked = dispatch::call_single_output(OpKind::ToMkldnn, {x, Tensor()}, {{"dtype", AttrValue()}});
      const Attrs pack{{"padding", Shape{1, 1}},       {"stride", Shape{1, 1}},     {"dilation", Shape{1, 1}},
                       {"groups", int64_t{1}},          {"input_size", blocked.shape()},
                       {"input_stride", blocked.strides()}, {"input_dtype", blocked.dtype()},
                       {"bias", true},                  {"sum", false},              {"relu", false},
                       {"winograd", true}};
      const Tensor packed = dispatch::call_single_output(OpKind::MkldnnReorderConv2dWeight, {w}, pack);
      const Attrs conv{{"padding", Shape{1, 1}}, {"stride", Shape{1, 1}},   {"dilation", Shape{1, 1}},
                       {"groups", int64_t{1}},    {"relu", false},           {"winograd", true},
                       {"weight_size", w.shape()}, {"packed_for", blocked.shape()}};
      const Tensor y = dispatch::call_single_output(OpKind::MkldnnConvolution, {blocked, packed, b, Tensor(), Tensor()}, conv);
      const Tensor dense = dispatch::call_single_output(OpKind::ToDense, {y, Tensor()}, {{"channels", c.c_out}});
      CHECK_TENSOR_CLOSE(dense, conv2d(x, w, b, {1, 1}, {1, 1}), 1e-4, 1e-4);
      // The same weight given dense goes through the same packing on every call.
      const Tensor from_dense = dispatch::call_single_output(OpKind::MkldnnConvolution, {blocked, w, b, Tensor(), Tensor()}, conv);
      CHECK(equal(from_dense, y));
    }
}

}  // namespace
}  // namespace tl
