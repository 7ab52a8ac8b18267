// ops/elementwise.h — the strided, broadcasting loop behind every elementwise kernel (internal to
// ops/, never installed). Operand 0 is the output; inputs broadcast to its shape. Runs over dense or
// stride-0 operands take a flat loop the compiler vectorises; large loops split over OpenMP threads.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/dispatch.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "ops/memory_format.h"
#include "ops/vector_kernels.h"
#include "ops/vector_math.h"

namespace tl::detail {

/// The output plus at most three inputs (where(condition, a, b)).
inline constexpr int kMaxOperands = 4;
/// Dense outputs at least this large are written with streaming stores past the caches: they could
/// not stay cached anyway, and skipping each line's read-for-ownership saves a quarter of an add's traffic.
inline constexpr int64_t kStreamingBytes = int64_t{16} << 20;

/// Loop geometry of one output and its inputs. Size-1 dimensions are dropped, the rest ordered by
/// the output's strides (fastest first) and merged wherever every operand steps evenly across them,
/// so a contiguous tensor of any rank, or one with a broadcast bias, is a single flat loop.
class ElementwiseLoop {
 public:
  /// `out` is written; every input must broadcast to out.shape() and must not be a proxy. Kernels
  /// check shapes with user-facing messages first: a mismatch here is an internal error. The loop
  /// holds on to its operands, so temporaries may be passed.
  ElementwiseLoop(const Tensor& out, std::initializer_list<Tensor> inputs);

  int64_t numel() const { return numel_; }

  /// Calls body(char* const* data, const int64_t* strides, int64_t n) for runs along the innermost
  /// dimension: data[k] is operand k's first element of the run, strides[k] its step in bytes. Loops
  /// larger than kGrainSize are split over threads, so `body` must not throw.
  template <typename Body>
  void run(const Body& body) const {
    parallel_for(0, numel_, kGrainSize, [&](int64_t begin, int64_t end) { run_range(begin, end, body); });
  }

 private:
  template <typename Body>
  void run_range(int64_t begin, int64_t end, const Body& body) const;
  int64_t stride(size_t dim, int operand) const { return strides_[dim * kMaxOperands + operand]; }

  std::array<Tensor, kMaxOperands> operands_;
  int num_operands_ = 0;
  int64_t numel_ = 0;
  std::array<char*, kMaxOperands> data_{};
  std::vector<int64_t> sizes_;    ///< innermost first
  std::vector<int64_t> strides_;  ///< bytes, kMaxOperands per dimension
};

template <typename Body>
void ElementwiseLoop::run_range(int64_t begin, int64_t end, const Body& body) const {
  const size_t ndim = sizes_.size();
  std::array<char*, kMaxOperands> ptr = data_;
  if (ndim == 1) {  // the common case after coalescing: one run, no index bookkeeping
    for (int k = 0; k < num_operands_; ++k) ptr[k] += begin * stride(0, k);
    body(ptr.data(), strides_.data(), end - begin);
    return;
  }
  std::vector<int64_t> index(ndim);
  int64_t rest = begin;
  for (size_t d = 0; d < ndim; ++d) {
    index[d] = rest % sizes_[d];
    rest /= sizes_[d];
    for (int k = 0; k < num_operands_; ++k) ptr[k] += index[d] * stride(d, k);
  }
  while (begin < end) {
    const int64_t n = std::min(sizes_[0] - index[0], end - begin);
    body(ptr.data(), strides_.data(), n);
    begin += n;
    index[0] += n;
    for (int k = 0; k < num_operands_; ++k) ptr[k] += n * stride(0, k);
    // Carry into outer dimensions, rewinding the pointers of each dimension that wrapped.
    for (size_t d = 0; d + 1 < ndim && index[d] == sizes_[d]; ++d) {
      index[d] = 0;
      ++index[d + 1];
      for (int k = 0; k < num_operands_; ++k) ptr[k] += stride(d + 1, k) - sizes_[d] * stride(d, k);
    }
  }
}

namespace loop_impl {

/// An input read either densely (p[k]) or, when broadcast along the run, once up front.
template <typename T, bool kBroadcast>
struct Operand {
  const T* p;
  T operator[](int64_t k) const { return p[k]; }
};
template <typename T>
struct Operand<T, true> {
  T value;
  T operator[](int64_t) const { return value; }
};

template <typename T, bool kBroadcast>
Operand<T, kBroadcast> make_operand(const char* p) {
  if constexpr (kBroadcast) return {*reinterpret_cast<const T*>(p)};
  else return {reinterpret_cast<const T*>(p)};
}

// Dense output; input I is broadcast when bit I of kMask is set. No index arithmetic beyond k, so
// the compiler vectorises it. `f` is copied first: read through the caller's reference, a value it captured (a
// slope, an alpha) was reloaded from memory on every element, and where only one arm of a select used it the
// loop stayed a branch per element (leaky_relu of randn: 3 ms for 1e6 floats).
template <unsigned kMask, typename Out, typename... In, typename F, size_t... I>
[[gnu::always_inline]] inline void dense_loop(char* const* data, int64_t n, const F& f, std::index_sequence<I...>) {
  const F fn = f;
  Out* out = reinterpret_cast<Out*>(data[0]);
  const std::tuple<Operand<In, ((kMask >> I) & 1u) != 0>...> in{
      make_operand<In, ((kMask >> I) & 1u) != 0>(data[I + 1])...};
  for (int64_t k = 0; k < n; ++k) out[k] = fn(std::get<I>(in)[k]...);
}

// The dense loop at the CPU's width (at_vector_width). Only floating outputs take the wide builds: their loops are
// where the width pays, and each build is one more copy of every loop of the library. Not inlined into its
// callers: it runs once per run of elements, and inlined, its three builds grew every kernel that loops.
template <unsigned kMask, typename Out, typename... In, typename F, size_t... I>
[[gnu::noinline]] void dense_run(char* const* data, int64_t n, const F& f, std::index_sequence<I...> in) {
  if constexpr (std::is_floating_point_v<Out>) {
    at_vector_width([&] { dense_loop<kMask, Out, In...>(data, n, f, in); });
  } else {
    dense_loop<kMask, Out, In...>(data, n, f, in);
  }
}

#if defined(__SSE2__)
// The 16-byte aligned middle of the output is computed a block at a time into an L1-resident buffer
// and streamed to memory past the caches; the unaligned head and the tail take the plain loop.
template <unsigned kMask, typename Out, typename... In, typename F, size_t... I>
void dense_run_streaming(char* const* data, int64_t n, const F& f, std::index_sequence<I...> inputs) {
  constexpr int64_t kBlockBytes = 1024, kBlock = kBlockBytes / static_cast<int64_t>(sizeof(Out));
  std::array<char*, sizeof...(In) + 1> p{data[0], data[I + 1]...};
  auto advance = [&](int64_t k) {
    p[0] += k * static_cast<int64_t>(sizeof(Out));
    ((p[I + 1] += ((kMask >> I) & 1u) != 0 ? 0 : k * static_cast<int64_t>(sizeof(In))), ...);
  };
  const int64_t misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(p[0]) % 16);
  const int64_t esize = static_cast<int64_t>(sizeof(Out));
  const int64_t head = std::min<int64_t>(n, misaligned == 0 ? 0 : (16 - misaligned) / esize);
  dense_run<kMask, Out, In...>(p.data(), head, f, inputs);
  advance(head);
  n -= head;
  alignas(64) Out block[kBlock];
  for (; n >= kBlock; n -= kBlock) {
    char* const into_block[] = {reinterpret_cast<char*>(block), p[I + 1]...};
    dense_run<kMask, Out, In...>(into_block, kBlock, f, inputs);
    const char* from = reinterpret_cast<const char*>(block);
    for (int64_t b = 0; b < kBlockBytes; b += 16) {
      const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(from + b));
      _mm_stream_si128(reinterpret_cast<__m128i*>(p[0] + b), v);
    }
    advance(kBlock);
  }
  dense_run<kMask, Out, In...>(p.data(), n, f, inputs);
  _mm_sfence();  // streamed stores become visible before the loop's threads join
}
#endif

template <unsigned kMask, typename Out, typename... In, typename F, size_t... I>
void dense(char* const* data, int64_t n, bool stream, const F& f, std::index_sequence<I...> inputs) {
#if defined(__SSE2__)
  // Short runs (rows of a broadcast) would pay a fence each for little streaming.
  if (stream && n * static_cast<int64_t>(sizeof(Out)) >= 4096) {
    return dense_run_streaming<kMask, Out, In...>(data, n, f, inputs);
  }
#endif
  (void)stream;
  dense_run<kMask, Out, In...>(data, n, f, inputs);
}

template <typename Out, typename... In, typename F, size_t... I, unsigned... M>
void dense_masked(unsigned mask, char* const* data, int64_t n, bool stream, const F& f,
                  std::index_sequence<I...> inputs, std::integer_sequence<unsigned, M...>) {
  (void)((mask == M ? (dense<M, Out, In...>(data, n, stream, f, inputs), true) : false) || ...);
}

template <typename Out, typename... In, typename F, size_t... I>
void run_inner(char* const* data, const int64_t* strides, int64_t n, bool stream, const F& f,
               std::index_sequence<I...> inputs) {
  if (strides[0] == sizeof(Out)) {
    const bool all_dense = ((strides[I + 1] == sizeof(In)) && ...);
    const bool dense_or_broadcast = ((strides[I + 1] == sizeof(In) || strides[I + 1] == 0) && ...);
    if (all_dense) return dense<0u, Out, In...>(data, n, stream, f, inputs);
    // Broadcast variants are generated for up to two inputs (2^inputs loops each).
    if constexpr (sizeof...(In) <= 2) {
      if (dense_or_broadcast) {
        const unsigned mask = ((strides[I + 1] == 0 ? 1u << I : 0u) | ... | 0u);
        return dense_masked<Out, In...>(mask, data, n, stream, f, inputs,
                                        std::make_integer_sequence<unsigned, 1u << sizeof...(In)>{});
      }
    }
  }
  const F fn = f;  // as in dense_run
  if constexpr (sizeof...(In) == 1) {
    // A dense output from an input read backwards (a flipped view's innermost dim): a loop that vectorises.
    if (strides[0] == sizeof(Out) && ((strides[I + 1] == -static_cast<int64_t>(sizeof(In))) && ...)) {
      Out* out = reinterpret_cast<Out*>(data[0]);
      for (int64_t k = 0; k < n; ++k) out[k] = fn(reinterpret_cast<const In*>(data[I + 1])[-k]...);
      return;
    }
  }
  for (int64_t k = 0; k < n; ++k) {
    Out* out = reinterpret_cast<Out*>(data[0] + k * strides[0]);
    *out = fn(*reinterpret_cast<const In*>(data[I + 1] + k * strides[I + 1])...);
  }
}

// ---- map_elements_fast: a vectorised formula valid on a range, a scalar one beyond it ----

inline constexpr int64_t kFastBlock = 256;  // elements per block: every buffer stays in L1

/// n elements of type T from p, stride bytes apart, as A: p itself when it holds them densely as A, else
/// `buffer` filled with them.
template <typename A, typename T>
const A* block_of(const char* p, int64_t stride, int64_t n, A* buffer) {
  if constexpr (std::is_same_v<A, T>)
    if (stride == static_cast<int64_t>(sizeof(T))) return reinterpret_cast<const A*>(p);
  if (stride == static_cast<int64_t>(sizeof(T))) {
    const T* dense = reinterpret_cast<const T*>(p);
    if constexpr (std::is_same_v<T, BFloat16> && std::is_same_v<A, float>) {
      for (int64_t k = 0; k < n; ++k) buffer[k] = bf16_to_float(dense[k].bits);  // as bits: the loop vectorises
    } else {
      for (int64_t k = 0; k < n; ++k) buffer[k] = static_cast<A>(dense[k]);
    }
  } else {
    for (int64_t k = 0; k < n; ++k) buffer[k] = static_cast<A>(*reinterpret_cast<const T*>(p + k * stride));
  }
  return buffer;
}

/// Whether valid(in[k]...) holds for every k < m (a loop the compiler drops where valid is always true).
template <typename Valid, typename... P>
bool all_valid(const Valid& valid, int64_t m, const P*... in) {
  bool all = true;
  for (int64_t k = 0; k < m; ++k) all &= static_cast<bool>(valid(in[k]...));
  return all;
}

template <typename Out, typename... In, typename Valid, typename Exact, size_t... I>
void fast_run(char* const* data, const int64_t* strides, int64_t n, VectorBlock fast, const Valid& valid,
              const Exact& exact, std::index_sequence<I...>) {
  alignas(64) float in_buffer[sizeof...(In)][kFastBlock];
  alignas(64) float out_buffer[kFastBlock];
  for (int64_t b = 0; b < n; b += kFastBlock) {
    const int64_t m = std::min(kFastBlock, n - b);
    const std::array<const float*, sizeof...(In)> in{
        block_of<float, In>(data[I + 1] + b * strides[I + 1], strides[I + 1], m, in_buffer[I])...};
    // Written in place where no input is read from there, or where every element of the block is valid: an in-place
    // op's fallback rereads its input (floor_'s rounding, valid everywhere, never falls back; nor does sin_ of a block
    // within range).
    float* const target = reinterpret_cast<float*>(data[0] + b * strides[0]);
    const bool dense_float = std::is_same_v<Out, float> && strides[0] == static_cast<int64_t>(sizeof(Out));
    const bool direct = dense_float && (((in[I] != target) && ...) || all_valid(valid, m, in[I]...));
    float* const out = direct ? target : out_buffer;
    if (fast(in.data(), out, m) != 0)
      for (int64_t k = 0; k < m; ++k)
        if (!valid(in[I][k]...)) out[k] = exact(in[I][k]...);
    if (direct) continue;
    if (dense_float) {
      std::memcpy(target, out, static_cast<size_t>(m) * sizeof(float));
    } else if (strides[0] == static_cast<int64_t>(sizeof(Out))) {
      Out* const dense = reinterpret_cast<Out*>(data[0]) + b;
      if constexpr (std::is_same_v<Out, BFloat16>) {  // BFloat16(x)'s rounding, as bits: the loop vectorises
        for (int64_t k = 0; k < m; ++k)
          dense[k].bits = static_cast<uint16_t>(std::bit_cast<uint32_t>(round_to_bf16(out[k])) >> 16);
      } else {
        for (int64_t k = 0; k < m; ++k) dense[k] = static_cast<Out>(out[k]);
      }
    } else {
      for (int64_t k = 0; k < m; ++k) *reinterpret_cast<Out*>(data[0] + (b + k) * strides[0]) = static_cast<Out>(out[k]);
    }
  }
}

inline constexpr int64_t kSplitBlock = 64;  // elements per block of floating_map_split

// A dense run of floating_map_split at the CPU's width: per block, one pass that asks whether every element may
// take `cheap` (an or-reduction, vectorised), then the block through `cheap` or `full`.
template <typename T, typename If, typename Cheap, typename Full>
[[gnu::noinline]] void split_run(char* const* data, int64_t n, const If& cheap_if, const Cheap& cheap,
                                 const Full& full) {
  at_vector_width([&] {
    const If is_cheap = cheap_if;  // copies, as in dense_loop
    const Cheap c = cheap;
    const Full f = full;
    T* const out = reinterpret_cast<T*>(data[0]);
    const T* const in = reinterpret_cast<const T*>(data[1]);
    for (int64_t b = 0; b < n; b += kSplitBlock) {
      const int64_t m = std::min(kSplitBlock, n - b);
      unsigned full_needed = 0;
      for (int64_t k = 0; k < m; ++k) full_needed |= static_cast<unsigned>(!is_cheap(in[b + k]));
      if (full_needed == 0) {
        for (int64_t k = 0; k < m; ++k) out[b + k] = c(in[b + k]);
      } else {
        for (int64_t k = 0; k < m; ++k) out[b + k] = f(in[b + k]);
      }
    }
  });
}

}  // namespace loop_impl

/// out = fast(in...) where valid(in...) holds, else exact(in...), all in float (bfloat16 is widened): `fast` is a
/// vectorised formula that holds on a range only (sin's polynomial up to 2^20), one of ops/vector_kernels.h's blocks
/// built for the running CPU, `exact` the scalar one beyond it (libm). Operands go a block at a time through float
/// buffers unless they are dense float already, so that `fast` runs vectorised for bfloat16 and any strides too.
/// `valid` and `exact` must not throw (they may run on several threads).
template <typename Out, typename... In, typename Valid, typename Exact>
void map_elements_fast(const ElementwiseLoop& loop, VectorBlock fast, const Valid& valid, const Exact& exact) {
  static_assert(sizeof...(In) + 1 <= kMaxOperands, "too many operands");
  loop.run([&](char* const* data, const int64_t* strides, int64_t n) {
    const auto run = [&] {
      loop_impl::fast_run<Out, In...>(data, strides, n, fast, valid, exact, std::index_sequence_for<In...>{});
    };
    // bfloat16 operands are widened and rounded at the CPU's width (integer steps: the same bits on every build).
    if constexpr (std::is_same_v<Out, BFloat16> || (std::is_same_v<In, BFloat16> || ...)) at_vector_width(run);
    else run();
  });
}

/// out = f(in...) for every element of `loop`, whose operands have the C++ types Out, In...
/// `f` must not throw (it may run on several threads).
template <typename Out, typename... In, typename F>
void map_elements(const ElementwiseLoop& loop, const F& f) {
  static_assert(sizeof...(In) + 1 <= kMaxOperands, "too many operands");
  const bool stream = loop.numel() * static_cast<int64_t>(sizeof(Out)) >= kStreamingBytes;
  loop.run([&](char* const* data, const int64_t* strides, int64_t n) {
    loop_impl::run_inner<Out, In...>(data, strides, n, stream, f, std::index_sequence_for<In...>{});
  });
}

/// The type arithmetic runs in: float for bfloat16, the type itself otherwise.
template <typename T>
using acc_type = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

/// A floating-point-only op (gelu, hardswish, silu): out = f(x) elementwise, `f` generic over the element
/// type (it computes in acc_type of it). Integral and bool input is refused, as PyTorch's activations refuse it.
/// With `in_place` (leaky_relu_, elu_) the result is written into x, which is returned (the dispatch point
/// has refused an expanded x).
template <typename F>
Tensor floating_map(const Tensor& x, const char* name, const F& f, bool in_place = false) {
  TL_CHECK(is_floating_point(x.dtype()), name, ": expected a floating point dtype, got ", x.dtype());
  const Tensor out = in_place ? x : Tensor::allocate(x.shape(), x.dtype());
  const ElementwiseLoop loop(out, {x});
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), name, [&] { map_elements<scalar_t, scalar_t>(loop, f); });
  return out;
}

/// floating_map(x, name, full, in_place), except that a block of dense elements that all pass `cheap_if` takes
/// `cheap`, which must give full's result wherever cheap_if holds: an op whose formula is cheap on part of its
/// domain skips the costly part where a whole block lies there (elu's positive inputs skip the exponential, as
/// ATen's vectorised elu skips it for a vector of them).
template <typename If, typename Cheap, typename Full>
Tensor floating_map_split(const Tensor& x, const char* name, const If& cheap_if, const Cheap& cheap, const Full& full,
                          bool in_place = false) {
  TL_CHECK(is_floating_point(x.dtype()), name, ": expected a floating point dtype, got ", x.dtype());
  const Tensor out = in_place ? x : Tensor::allocate(x.shape(), x.dtype());
  const ElementwiseLoop loop(out, {x});
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), name, [&] {
    constexpr auto kSize = static_cast<int64_t>(sizeof(scalar_t));
    loop.run([&](char* const* data, const int64_t* strides, int64_t n) {
      if (strides[0] == kSize && strides[1] == kSize) {
        loop_impl::split_run<scalar_t>(data, n, cheap_if, cheap, full);
      } else {
        loop_impl::run_inner<scalar_t, scalar_t>(data, strides, n, false, full, std::index_sequence<0>{});
      }
    });
  });
  return out;
}

/// The broadcast shape of an activation's backward (threshold_backward, gelu_backward, ...): grad_output
/// and self of one floating point dtype, else tl::Error naming `op` and both dtypes.
Shape activation_backward_shape(const Tensor& grad, const Tensor& self, const char* op);

/// An activation's backward: out = f(grad, self) elementwise with broadcasting, `f` generic over the
/// element type; grad and self checked by activation_backward_shape. out is laid out as ATen's TensorIterator
/// lays it out (channels-last for channels-last operands).
template <typename F>
Tensor activation_backward_map(const Tensor& grad, const Tensor& self, const char* name, const F& f) {
  const Tensor out = allocate_like_inputs(activation_backward_shape(grad, self, name), grad.dtype(), {grad, self});
  const ElementwiseLoop loop(out, {grad, self});
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), name, [&] { map_elements<scalar_t, scalar_t, scalar_t>(loop, f); });
  return out;
}

/// Floating to integral as PyTorch gives it on x86: truncation toward zero, and the lowest value for
/// NaN and anything out of range (what cvttss2si/cvttsd2si return; a plain cast would be undefined). A
/// byte type (uint8, int8) takes the low byte of the int32 conversion, as PyTorch's: -1.0 -> 255, 300.0 -> 44.
template <typename To, typename From>
To floating_to_integral(From v) {
  if constexpr (sizeof(To) < sizeof(int32_t)) return static_cast<To>(floating_to_integral<int32_t>(v));
  constexpr From kLow = static_cast<From>(std::numeric_limits<To>::min());  // -2^(bits-1): exact
  return v >= kLow && v < -kLow ? static_cast<To>(v) : std::numeric_limits<To>::min();
}

/// Converts one element between the plain dtypes as PyTorch does (bool is `v != 0`, bfloat16 goes
/// through float, floating to integral truncates: see floating_to_integral).
template <typename To, typename From>
To convert_element(From v) {
  if constexpr (std::is_same_v<To, bool>) return static_cast<acc_type<From>>(v) != acc_type<From>(0);
  else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>)
    return floating_to_integral<To>(static_cast<acc_type<From>>(v));
  else if constexpr (std::is_same_v<To, BFloat16> || std::is_same_v<From, BFloat16>)
    return static_cast<To>(static_cast<float>(v));
  else return static_cast<To>(v);
}

// ---- dtype rules ----

/// PyTorch's result type: dimensioned tensors outrank 0-dim tensors, which outrank Python numbers,
/// unless a lower rank holds a higher category (bool < integral < floating). Undefined tensors are skipped.
DType result_type(std::span<const Tensor> tensors, std::span<const Scalar> scalars = {});
/// Whether an in-place op may write a `from` result into a `to` tensor (no floating to integral,
/// nothing but bool to bool), as torch.can_cast.
bool can_cast(DType from, DType to);

// ---- building blocks shared by kernels (none of them goes through the dispatcher) ----

/// A 0-dim tensor holding `value` converted to `dtype`.
Tensor scalar_to_tensor(const Scalar& value, DType dtype);
/// Writes `src`, broadcast to out's shape and converted to out's dtype, into `out`.
void copy_elements(const Tensor& out, const Tensor& src);
/// `x` itself when it already has `dtype`, else a contiguous converted copy.
Tensor to_dtype(const Tensor& x, DType dtype);

/// True when several elements of `t` share memory: a stride-0 dimension of size > 1 (an expanded tensor;
/// ATen's has_internal_overlap answering YES).
bool has_internal_overlap(const Tensor& t);
/// Throws when has_internal_overlap(out), as ATen's assert_no_internal_overlap refuses to write there.
void check_no_internal_overlap(const Tensor& out, std::string_view op);
/// Throws when `in` and `out` share memory (ATen's assert_no_overlap), unless they are the same elements
/// in the same order and `allow_full` (assert_no_partial_overlap). As ATen, only dense operands are
/// judged; anything else is too costly to decide and passes.
void check_no_overlap(const Tensor& out, const Tensor& in, std::string_view op, bool allow_full);
/// For in-place ops: `other` must broadcast to self's shape without growing it.
void check_inplace_broadcast(const Tensor& self, const Shape& other, const char* op);

/// The operands of a binary op (add, eq, pow, ...): `other` is the tensor operand or, when that is
/// undefined, the number its arguments struct holds (x + 2) as a 0-dim tensor of the result dtype.
struct BinaryOperands {
  Tensor self;
  Tensor other;
  bool other_is_scalar = false;
  DType other_dtype = DType::Float32;  ///< other's own dtype (a number's: bool, int64 or float64)
  DType dtype = DType::Float32;  ///< PyTorch's result type of (self, other)
  Shape shape;                   ///< the broadcast shape
};
/// The dtype ATen wraps a number in: float64, int64 or bool.
DType wrapped_number_dtype(const Scalar& value);
/// `self` and `other` (undefined when the op got the number `number` instead) of op `op`, whose schema calls
/// its second operand `other_name`; throws when neither a tensor nor a number was given.
BinaryOperands binary_operands(const Tensor& self, const Tensor& other, const std::optional<Scalar>& number,
                               const char* op, std::string_view other_name = "other");

}  // namespace tl::detail
