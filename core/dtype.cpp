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
    case DType::UInt8:
    case DType::Int8:
    case DType::QUInt8:
    case DType::QInt8: return 1;
    case DType::QInt32: return 4;
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
    case DType::UInt8: return "torch.uint8";
    case DType::Int8: return "torch.int8";
    case DType::QUInt8: return "torch.quint8";
    case DType::QInt8: return "torch.qint8";
    case DType::QInt32: return "torch.qint32";
  }
  return "torch.unknown";
}

const char* scalar_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Int64: return "Long";
    case DType::Int32: return "Int";
    case DType::Bool: return "Bool";
    case DType::BFloat16: return "BFloat16";
    case DType::UInt8: return "Byte";
    case DType::Int8: return "Char";
    case DType::QUInt8: return "QUInt8";
    case DType::QInt8: return "QInt8";
    case DType::QInt32: return "QInt32";
  }
  return "Unknown";
}

bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::BFloat16;
}

bool is_quantized(DType dtype) {
  return dtype == DType::QUInt8 || dtype == DType::QInt8 || dtype == DType::QInt32;
}

DType underlying_dtype(DType dtype) {
  switch (dtype) {
    case DType::QUInt8: return DType::UInt8;
    case DType::QInt8: return DType::Int8;
    case DType::QInt32: return DType::Int32;
    default: return dtype;
  }
}

namespace {
// Rank on PyTorch's lattice: bool < uint8, int8 < int32 < int64 < bfloat16 < float32 < float64 (uint8 and
// int8 meet at int16, which torchless does not have: promote_types refuses the pair).
int rank(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::UInt8:
    case DType::Int8: return 1;
    case DType::Int32: return 2;
    case DType::Int64: return 3;
    case DType::BFloat16: return 4;
    case DType::Float32: return 5;
    case DType::Float64: return 6;
    case DType::QUInt8:
    case DType::QInt8:
    case DType::QInt32: break;
  }
  TL_INTERNAL_ASSERT(false, "rank: no promotion rank for ", dtype_name(d));
  return 0;
}
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  TL_CHECK(!is_quantized(a) && !is_quantized(b), "promoteTypes with quantized numbers is not handled yet; figure out "
           "what the correct rules should be, offending types: ", scalar_type_name(a), " ", scalar_type_name(b));
  TL_CHECK(rank(a) != rank(b), "promote_types: ", dtype_name(a), " and ", dtype_name(b),
           " promote to torch.int16, which torchless does not have");
  return rank(a) > rank(b) ? a : b;
}

std::ostream& operator<<(std::ostream& os, DType dtype) { return os << dtype_name(dtype); }

}  // namespace tl
