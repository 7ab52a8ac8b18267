// core/print.cpp — prints tensors exactly as PyTorch 1.13 does with its default print options
// (torch/_tensor_str.py, and nn.Parameter's repr). Reads elements through sizes/strides, so every
// strided view prints right.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/autograd_meta.h"
#include "core/py_repr.h"
#include "core/tensor.h"

namespace tl {
namespace {

// torch.set_printoptions(profile="default")
constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;
constexpr const char* kPrefix = "tensor(";
constexpr int64_t kIndent = 7;  // length of kPrefix

// The indices of one dimension that get printed: all, or the edge items when summarising. The
// formatter measures exactly these elements (PyTorch's get_summarized_data picks the same ones).
std::vector<int64_t> visible_indices(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (int64_t i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i) idx.push_back(i);
  }
  return idx;
}

// Floating types widen to double (what a Python float holds), the others to int64.
template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>, double, int64_t>;

// Appends the visible elements in row-major order, following the tensor's strides.
template <typename T>
void collect(const T* data, const TensorBase& t, bool summarize, int64_t d, int64_t offset,
             std::vector<Wide<T>>& out) {
  if (d == t.dim()) {
    out.push_back(static_cast<Wide<T>>(data[offset]));
    return;
  }
  for (int64_t i : visible_indices(t.size(d), summarize)) {
    collect(data, t, summarize, d + 1, offset + i * t.stride(d), out);
  }
}

// printf's %f / %e give the same digits as Python's format() (both round the exact binary value);
// non-finite values take Python's spelling: nan (never -nan), inf, -inf.
std::string float_text(const char* spec, int precision, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[400];  // %.4f of the largest double needs 314 characters
  const int n = std::snprintf(buf, sizeof buf, spec, precision, v);
  TL_INTERNAL_ASSERT(n > 0 && n < static_cast<int>(sizeof buf), "print: cannot format ", v);
  return std::string(buf, static_cast<size_t>(n));
}

std::string pad_left(std::string s, int64_t width) {
  const auto len = static_cast<int64_t>(s.size());
  return len >= width ? s : std::string(static_cast<size_t>(width - len), ' ') + s;
}

// PyTorch's _Formatter for floating tensors: one mode for all elements (integer-valued "1.",
// fixed "%.4f" or scientific "%.4e") and one width, both measured over the non-zero finite values.
class FloatFormatter {
 public:
  explicit FloatFormatter(const std::vector<double>& values) {
    double lo = INFINITY, hi = 0.0;
    bool any = false;
    for (double v : values) {
      if (!std::isfinite(v) || v == 0.0) continue;
      any = true;
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (!any) return;
    const bool wide_range = hi / lo > 1000.0 || hi > 1.0e8;
    sci_mode_ = int_mode_ ? wide_range : wide_range || lo < 1.0e-4;
    for (double v : values) {
      if (std::isfinite(v) && v != 0.0) width_ = std::max(width_, static_cast<int64_t>(text(v).size()));
    }
  }
  int64_t width() const { return width_; }
  std::string format(double v) const { return pad_left(text(v), width_); }

 private:
  std::string text(double v) const {
    if (sci_mode_) return float_text("%.*e", kPrecision, v);
    if (int_mode_) return float_text("%.*f", 0, v) + (std::isfinite(v) ? "." : "");
    return float_text("%.*f", kPrecision, v);
  }
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int64_t width_ = 1;
};

// Integers print as Python ints, bools as True / False, right-aligned to the widest one.
std::vector<std::string> format_all(const std::vector<int64_t>& values, bool is_bool, int64_t& width) {
  std::vector<std::string> out;
  width = 1;
  for (int64_t v : values) {
    out.push_back(is_bool ? (v ? "True" : "False") : std::to_string(v));
    width = std::max(width, static_cast<int64_t>(out.back().size()));
  }
  for (std::string& s : out) s = pad_left(std::move(s), width);
  return out;
}

std::vector<std::string> format_all(const std::vector<double>& values, bool, int64_t& width) {
  const FloatFormatter formatter(values);
  width = formatter.width();
  std::vector<std::string> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(formatter.format(v));
  return out;
}

// "," then `newlines` line breaks, then the indentation of the next row.
std::string separator(int64_t newlines, int64_t indent) {
  std::string s(1, ',');
  s.append(static_cast<size_t>(newlines), '\n');
  s.append(static_cast<size_t>(indent), ' ');
  return s;
}

// The nested-bracket layout of _tensor_str_with_formatter, consuming the formatted elements in order.
class Layout {
 public:
  Layout(const Shape& sizes, bool summarize, const std::vector<std::string>& items, int64_t width)
      : sizes_(sizes), summarize_(summarize), items_(items), width_(width) {}

  std::string render(int64_t d, int64_t indent) {
    if (sizes_.empty()) return items_[next_++];
    if (d == sizes_.size() - 1) return render_vector(indent);
    const bool elide = summarize_ && sizes_[d] > 2 * kEdgeItems;
    const int64_t shown = elide ? 2 * kEdgeItems : sizes_[d];
    const std::string sep = separator(sizes_.size() - d - 1, indent + 1);
    std::string s = "[";
    for (int64_t i = 0; i < shown; ++i) {
      if (i > 0) s += sep;
      if (elide && i == kEdgeItems) s.append("...").append(sep);
      s += render(d + 1, indent + 1);
    }
    return s + "]";
  }

 private:
  // One row, wrapped so that each line holds as many elements as fit in the line width.
  std::string render_vector(int64_t indent) {
    const int64_t size = sizes_[sizes_.size() - 1];
    const bool elide = summarize_ && size > 2 * kEdgeItems;
    std::vector<std::string> cells;
    for (int64_t i = 0, shown = elide ? 2 * kEdgeItems : size; i < shown; ++i) {
      if (elide && i == kEdgeItems) cells.push_back(" ...");
      cells.push_back(items_[next_++]);
    }
    const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (width_ + 2));
    std::string s = "[";
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) s += i % static_cast<size_t>(per_line) == 0 ? separator(1, indent + 1) : ", ";
      s += cells[i];
    }
    return s + "]";
  }

  const Shape& sizes_;
  bool summarize_;
  const std::vector<std::string>& items_;
  int64_t width_;
  size_t next_ = 0;
};

std::string tensor_body(const TensorBase& t) {
  const bool summarize = t.numel() > kThreshold;
  int64_t width = 1;
  std::vector<std::string> items;
  TL_DISPATCH_ALL_TYPES(t.dtype(), "print", [&] {
    std::vector<Wide<scalar_t>> values;
    collect(static_cast<const scalar_t*>(t.raw_data()), t, summarize, 0, 0, values);
    items = format_all(values, t.dtype() == DType::Bool, width);
  });
  return Layout(t.shape(), summarize, items, width).render(0, kIndent);
}

// Python's tuple repr: (0,) or (2, 0, 3).
std::string tuple_text(const Shape& sizes) {
  std::string s = "(";
  for (int64_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

// _add_suffixes: ", suffix" on the last line, or on a new line when it would pass the line width.
std::string with_suffixes(std::string text, const std::vector<std::string>& suffixes) {
  const size_t newline = text.rfind('\n');
  int64_t last_line = static_cast<int64_t>(newline == std::string::npos ? text.size() + 2 : text.size() - newline + 1);
  for (const std::string& suffix : suffixes) {
    const auto len = static_cast<int64_t>(suffix.size());
    if (last_line + len + 2 > kLineWidth) {
      text += separator(1, kIndent) + suffix;
      last_line = kIndent + len;
    } else {
      text += ", " + suffix;
      last_line += len + 2;
    }
  }
  return text + ")";
}

// _str_intern's suffixes of a quantized tensor: its size, dtype and quantization parameters.
std::vector<std::string> quantized_suffixes(const Tensor& t) {
  std::vector<std::string> s{"size=" + tuple_text(t.shape()), std::string("dtype=") + dtype_name(t.dtype()),
                             std::string("quantization_scheme=") + qscheme_name(t.qscheme())};
  if (t.qscheme() == QScheme::PerTensorAffine) {
    s.push_back("scale=" + py_float(t.q_scale()));
    s.push_back("zero_point=" + std::to_string(t.q_zero_point()));
  } else {
    std::ostringstream scales, zero_points;
    scales << t.q_per_channel_scales();
    zero_points << t.q_per_channel_zero_points();
    s.push_back("scale=" + scales.str());
    s.push_back("zero_point=" + zero_points.str());
    s.push_back("axis=" + std::to_string(t.q_per_channel_axis()));
  }
  return s;
}

// _str_intern's autograd suffix: the node that made the tensor, or requires_grad=True for a leaf.
std::string autograd_suffix(const Tensor& t) {
  if (!t.requires_grad()) return "";
  const GradFnNameFn name_of = grad_fn_name_fn();
  const std::string grad_fn = name_of ? name_of(t) : std::string();
  return grad_fn.empty() ? "requires_grad=True" : "grad_fn=<" + grad_fn + ">";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "None";
  if (t.is_proxy()) return os << kPrefix << "<proxy>)";
  if (t.is_parameter()) os << "Parameter containing:\n";
  std::vector<std::string> suffixes;
  std::string body = "[]";
  if (t.is_quantized()) {  // the real values, as PyTorch prints self.dequantize()
    suffixes = quantized_suffixes(t);
    if (t.numel() > 0) body = tensor_body(detail::dequantize_elements(t));
  } else if (t.numel() == 0) {
    // No element shows the dtype, so every non-default one is named (int64 and bool included).
    if (t.dim() != 1) suffixes.push_back("size=" + tuple_text(t.shape()));
    if (t.dtype() != DType::Float32) suffixes.push_back(std::string("dtype=") + dtype_name(t.dtype()));
  } else {
    const DType d = t.dtype();
    if (d != DType::Float32 && d != DType::Int64 && d != DType::Bool) {
      suffixes.push_back(std::string("dtype=") + dtype_name(d));
    }
    body = tensor_body(t);
  }
  if (std::string grad = autograd_suffix(t); !grad.empty()) suffixes.push_back(std::move(grad));
  return os << with_suffixes(kPrefix + body, suffixes);
}

}  // namespace tl
