// ops/onednn/matmul_primitive.h — what every matmul-backed kernel caches (ops/gemm_onednn.cpp,
// ops/inference_linear.cpp, ops/quantized/qlinear.cpp): the created primitive and the layouts it settled on.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "ops/onednn/engine.h"
#include "ops/onednn/primitive_cache.h"

namespace tl::onednn {

/// A matmul primitive and its src, weights and dst layouts as created (format_tag::any resolved).
struct MatmulPrimitive : CachedPlan {
  explicit MatmulPrimitive(const dnnl::matmul::primitive_desc& pd)
      : matmul(pd), src(pd.src_desc()), weights(pd.weights_desc()), dst(pd.dst_desc()) {}

  Primitive matmul;
  dnnl::memory::desc src, weights, dst;
};

}  // namespace tl::onednn
