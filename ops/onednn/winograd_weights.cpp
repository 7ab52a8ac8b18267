// ops/onednn/winograd_weights.cpp — U = G g G^T for 16 output channels at a time, stored straight into
// oneDNN's fp32 Winograd weight layouts. Each product is summed in oneDNN's order, so U matches its reorder.
#include "ops/onednn/winograd_weights.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"

namespace tl::onednn {
namespace {

constexpr int kR = 3;         // kernel size
constexpr int kOcBlock = 16;  // output channels transformed together: the vectorized dimension

// G of F(2x2, 3x3) and F(4x4, 3x3) (tile sizes 4 and 6), with the interpolation points and scaling
// oneDNN's Winograd kernels are built for.
constexpr float kG2[4][kR] = {{1.f, 0.f, 0.f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.f, 0.f, 1.f}};
constexpr float kG4[6][kR] = {{1.13777777777778f, 0.f, 0.f},
                              {-0.688403361344538f, -0.430252100840336f, -0.26890756302521f},
                              {-0.688403361344538f, 0.430252100840336f, -0.26890756302521f},
                              {0.119514472455649f, 0.179271708683473f, 0.26890756302521f},
                              {0.119514472455649f, -0.179271708683473f, 0.26890756302521f},
                              {0.f, 0.f, 1.f}};

using Kernels = float[kR * kR][kOcBlock];  // g[kh * 3 + kw][o]
template <int A>
using Tiles = float[A][A][kOcBlock];  // u[a][b][o]

/// u = G g G^T for each of the 16 kernels: first w[kh][j] = sum_kw g[kh][kw] G[j][kw], then
/// u[a][j] = sum_k G[a][k] w[k][j], each sum from 0 in k order as oneDNN's reorder adds them.
template <int A>
void transform(const float (&G)[A][kR], const Kernels& g, Tiles<A>& u) {
  float w[kR][A][kOcBlock];
  for (int kh = 0; kh < kR; ++kh)
    for (int j = 0; j < A; ++j) {
#pragma omp simd
      for (int o = 0; o < kOcBlock; ++o) {
        float t = 0.f;
        t += g[kh * kR + 0][o] * G[j][0];
        t += g[kh * kR + 1][o] * G[j][1];
        t += g[kh * kR + 2][o] * G[j][2];
        w[kh][j][o] = t;
      }
    }
  for (int a = 0; a < A; ++a)
    for (int j = 0; j < A; ++j) {
#pragma omp simd
      for (int o = 0; o < kOcBlock; ++o) {
        float t = 0.f;
        t += G[a][0] * w[0][j][o];
        t += G[a][1] * w[1][j][o];
        t += G[a][2] * w[2][j][o];
        u[a][j][o] = t;
      }
    }
}

/// Where the wino desc puts U[a][b] of output channel ocp = block * 16 + o and input channel icp: at
/// float base(block, icp) + (a * alpha + b) * plane() + o, in each of the three fp32 layouts.
struct Layout {
  dnnl_wino_memory_format_t format;
  int64_t alpha, oc, ic, ic_block, oc2_block, ic2_block;

  int64_t plane() const { return format == dnnl_wino_wei_OBaaIBOIio ? ic * oc2_block * kOcBlock : oc * ic; }
  int64_t base(int64_t block, int64_t icp) const {
    const int64_t occ = block / oc2_block, ob = block % oc2_block;
    switch (format) {
      case dnnl_wino_wei_aaOio:  // (a, b, oc / 16, ic, 16)
        return (block * ic + icp) * kOcBlock;
      case dnnl_wino_wei_aaOBiOo:  // (a, b, oc chunk, ic / ic_block, ic_block, oc2_block, 16)
        return ((occ * ic + icp) * oc2_block + ob) * kOcBlock;
      default: {  // OBaaIBOIio: (oc chunk, a, b, ic chunk, oc2_block, ic2_block, ic_block, 16)
        const int64_t icc = icp / (ic2_block * ic_block), ib = icp / ic_block % ic2_block, i = icp % ic_block;
        return occ * alpha * alpha * plane() + (((icc * oc2_block + ob) * ic2_block + ib) * ic_block + i) * kOcBlock;
      }
    }
  }
};

/// Writes the tiles of output channels [block * 16, block * 16 + 16) for every input channel; the
/// channels past C_out or C_in transform zeros, as oneDNN pads them.
template <int A>
void pack_block(const float (&G)[A][kR], const float* weight, int64_t c_out, int64_t c_in, const Layout& l,
                int64_t block, float* dst) {
  const int64_t oc0 = block * kOcBlock;
  const int64_t real = std::clamp<int64_t>(c_out - oc0, 0, kOcBlock);
  Kernels g;
  Tiles<A> u;
  for (int64_t icp = 0; icp < l.ic; ++icp) {
    for (int64_t o = 0; o < kOcBlock; ++o) {
      if (o < real && icp < c_in) {
        const float* kernel = weight + ((oc0 + o) * c_in + icp) * kR * kR;
        for (int k = 0; k < kR * kR; ++k) g[k][o] = kernel[k];
      } else {
        for (int k = 0; k < kR * kR; ++k) g[k][o] = 0.f;
      }
    }
    transform<A>(G, g, u);
    float* out = dst + l.base(block, icp);
    for (int a = 0; a < A; ++a)
      for (int b = 0; b < A; ++b) std::copy_n(u[a][b], kOcBlock, out + (a * A + b) * l.plane());
  }
}

}  // namespace

bool packs_winograd_weights(const dnnl::memory::desc& packed, const Shape& weight) {
  const dnnl_memory_desc_t& md = packed.data;
  if (md.format_kind != dnnl_format_kind_wino || md.data_type != dnnl_f32 || md.ndims != 4 || md.offset0 != 0)
    return false;
  if (weight.size() != 4 || weight[0] != md.dims[0] || weight[1] != md.dims[1] || weight[2] != kR || weight[3] != kR)
    return false;
  const dnnl_wino_desc_t& d = md.format_desc.wino_desc;
  const int alpha = d.wino_format == dnnl_wino_wei_OBaaIBOIio ? 6 : 4;
  const bool known = d.wino_format == dnnl_wino_wei_aaOio || d.wino_format == dnnl_wino_wei_aaOBiOo ||
                     d.wino_format == dnnl_wino_wei_OBaaIBOIio;
  // oneDNN's layouts ignore ic2_block except in OBaaIBOIio.
  const int ic2_block = d.wino_format == dnnl_wino_wei_OBaaIBOIio ? d.ic2_block : 1;
  if (!known || d.r != kR || d.alpha != alpha || d.adj_scale != 1.0f) return false;
  if (d.oc_block != kOcBlock || d.ic_block <= 0 || d.oc2_block <= 0 || ic2_block <= 0) return false;
  if (d.oc < weight[0] || d.ic < weight[1] || d.oc % (kOcBlock * d.oc2_block) != 0 ||
      d.ic % (d.ic_block * ic2_block) != 0)
    return false;
  return d.size == sizeof(float) * static_cast<size_t>(alpha * alpha) * d.oc * d.ic && packed.get_size() == d.size;
}

void pack_winograd_weights(const Tensor& weight, const dnnl::memory::desc& packed, void* dst) {
  TL_INTERNAL_ASSERT(weight.dtype() == DType::Float32 && weight.is_contiguous() &&
                         packs_winograd_weights(packed, weight.shape()),
                     "pack_winograd_weights: weight ", weight.shape(), " ", weight.dtype(),
                     " does not fit the packed layout");
  const dnnl_wino_desc_t& d = packed.data.format_desc.wino_desc;
  const Layout l{d.wino_format, d.alpha, d.oc, d.ic, d.ic_block, d.oc2_block, d.ic2_block};
  const float* w = weight.data<float>();
  float* out = static_cast<float*>(dst);
  const int64_t c_out = weight.size(0), c_in = weight.size(1);
  // One block of 16 output channels writes alpha^2 * 16 floats per input channel.
  const int64_t per_block = l.ic * l.alpha * l.alpha * kOcBlock;
  parallel_for(0, l.oc / kOcBlock, std::max<int64_t>(1, kGrainSize / per_block), [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      if (l.alpha == 6) {
        pack_block<6>(kG4, w, c_out, c_in, l, block, out);
      } else {
        pack_block<4>(kG2, w, c_out, c_in, l, block, out);
      }
    }
  });
}

}  // namespace tl::onednn
