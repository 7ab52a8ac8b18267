// core/dtype.cpp — dtype properties and PyTorch's type promotion.
#include "core/dtype.h"

#include <ostream>

#include "core/error.h"

namespace tl {

int64_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::Int32: return 4;
    case DType::Bool: return 1;
    case DType::BFloat16: return 2;
  }
  TL_INTERNAL_ASSERT(false, "unknown dtype ", static_cast<int>(dtype));
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    case DType::Int64: return "torch.int64";
    case DType::Int32: return "torch.int32";
    case DType::Bool: return "torch.bool";
    case DType::BFloat16: return "torch.bfloat16";
  }
  return "torch.unknown";
}

bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::BFloat16;
}

namespace {
// Rank on PyTorch's lattice: bool < int32 < int64 < bfloat16 < float32 < float64.
int rank(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::Int32: return 1;
    case DType::Int64: return 2;
    case DType::BFloat16: return 3;
    case DType::Float32: return 4;
    case DType::Float64: return 5;
  }
  return 0;
}
}  // namespace

DType promote_types(DType a, DType b) { return rank(a) >= rank(b) ? a : b; }

std::ostream& operator<<(std::ostream& os, DType dtype) { return os << dtype_name(dtype); }

}  // namespace tl
