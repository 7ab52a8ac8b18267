// nn/quantized_entries.cpp — quantized state dict entries to plain tensors and back (nn/quantized_entries.h). A
// join checks every entry before it makes the first quantized tensor.
#include "nn/quantized_entries.h"

#include <array>
#include <unordered_map>

#include "ops/ops.h"

namespace tl::nn {
namespace {

constexpr const char* kScale = ".q_scale";
constexpr const char* kZeroPoint = ".q_zero_point";
constexpr const char* kScales = ".q_per_channel_scales";
constexpr const char* kZeroPoints = ".q_per_channel_zero_points";
constexpr const char* kAxis = ".q_per_channel_axis";
constexpr std::array<const char*, 5> kSuffixes{kScale, kZeroPoint, kScales, kZeroPoints, kAxis};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The quantizer suffix `key` ends with, or nullptr.
const char* suffix_of(const std::string& key) {
  for (const char* suffix : kSuffixes)
    if (ends_with(key, suffix)) return suffix;
  return nullptr;
}

class Joiner {
 public:
  Joiner(const StateDict& tensors, const std::string& what) : what_(what) {
    for (const auto& [key, t] : tensors) by_key_[key] = &t;
  }

  // The quantized tensor `key`'s integers and quantizer entries make; undefined when `key` has none.
  Tensor join(const std::string& key, const Tensor& ints) const {
    const bool per_tensor = by_key_.count(key + kScale) || by_key_.count(key + kZeroPoint);
    const bool per_channel =
        by_key_.count(key + kScales) || by_key_.count(key + kZeroPoints) || by_key_.count(key + kAxis);
    if (!per_tensor && !per_channel) return Tensor();
    TL_CHECK(!(per_tensor && per_channel), what_, "quantized tensor '", key, "' has both per-tensor (", key, kScale,
             ") and per-channel (", key, kScales, ") entries");
    TL_CHECK(ints.dtype() == DType::UInt8 || ints.dtype() == DType::Int8 || ints.dtype() == DType::Int32, what_,
             "quantized tensor '", key, "' holds ", ints.dtype(), " integers; quint8, qint8 and qint32 are stored as ",
             "uint8, int8 and int32");
    if (per_tensor) {
      const Tensor& scale = entry(key, kScale, DType::Float64, Shape{});
      const Tensor& zero_point = entry(key, kZeroPoint, DType::Int64, Shape{});
      return named(key, [&] {
        return _make_per_tensor_quantized_tensor(ints, scale.item<double>(), zero_point.item<int64_t>());
      });
    }
    const int64_t axis = entry(key, kAxis, DType::Int64, Shape{}).item<int64_t>();
    TL_CHECK(axis >= 0 && axis < ints.dim(), what_, "'", key, kAxis, "' is ", axis, ", outside the dimensions of '",
             key, "' ", ints.shape());
    const Shape channels{ints.size(axis)};
    const Tensor& scales = entry(key, kScales, DType::Float64, channels);
    const Tensor& zero_points = entry(key, kZeroPoints, DType::Int64, channels);
    return named(key, [&] { return _make_per_channel_quantized_tensor(ints, scales, zero_points, axis); });
  }

  // A quantizer entry whose integers are not in the file.
  void check_owned(const std::string& key, const char* suffix) const {
    const std::string owner = key.substr(0, key.size() - std::string(suffix).size());
    TL_CHECK(by_key_.count(owner), what_, "'", key, "' describes the quantized tensor '", owner,
             "', which is missing");
  }

 private:
  // make(), its error (the quantizer's: a scale that is not positive, a zero point out of range) naming `key`.
  template <class Make>
  Tensor named(const std::string& key, const Make& make) const {
    try {
      return make();
    } catch (const Error& e) {
      throw Error(what_ + "quantized tensor '" + key + "': " + e.what());
    }
  }

  const Tensor& entry(const std::string& key, const char* suffix, DType dtype, const Shape& shape) const {
    const std::string name = key + suffix;
    const auto it = by_key_.find(name);
    TL_CHECK(it != by_key_.end(), what_, "quantized tensor '", key, "' has no '", name, "'");
    const Tensor& t = *it->second;
    TL_CHECK(t.dtype() == dtype && t.shape() == shape, what_, "'", name, "' is ", t.dtype(), " ", t.shape(),
             ", expected ", dtype, " ", shape);
    return t;
  }

  std::string what_;
  std::unordered_map<std::string, const Tensor*> by_key_;
};

}  // namespace

StateDict split_quantized(const StateDict& tensors) {
  StateDict out;
  out.reserve(tensors.size());
  for (const auto& [key, t] : tensors) {
    if (!t.defined() || t.is_proxy() || !t.is_quantized()) {
      out.emplace_back(key, t);
      continue;
    }
    out.emplace_back(key, t.int_repr());
    if (is_per_tensor(t.qscheme())) {
      out.emplace_back(key + kScale, full({}, t.q_scale(), DType::Float64));
      out.emplace_back(key + kZeroPoint, full({}, t.q_zero_point(), DType::Int64));
    } else {
      out.emplace_back(key + kScales, t.q_per_channel_scales());
      out.emplace_back(key + kZeroPoints, t.q_per_channel_zero_points());
      out.emplace_back(key + kAxis, full({}, t.q_per_channel_axis(), DType::Int64));
    }
  }
  return out;
}

StateDict join_quantized(const StateDict& tensors, const std::string& what) {
  const Joiner joiner(tensors, what);
  StateDict out;
  out.reserve(tensors.size());
  for (const auto& [key, t] : tensors) {
    if (const char* suffix = suffix_of(key)) {
      joiner.check_owned(key, suffix);
      continue;
    }
    const Tensor q = joiner.join(key, t);
    out.emplace_back(key, q.defined() ? q : t);
  }
  return out;
}

}  // namespace tl::nn
