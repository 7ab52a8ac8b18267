// tests/profiler/test_flops.cpp — flop estimates against references that count the
// multiply-adds directly, and the profiler giving them to the innermost op.
#include <doctest/doctest.h>

#include "core/op_kind.h"
#include "ops/ops.h"
#include "profiler/flops.h"
#include "profiler/profile.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

Tensor meta(const Shape& shape) { return empty(shape); }

int64_t conv_flops(const Shape& x, const Shape& w, Shape stride, Shape padding, Shape dilation, int64_t groups) {
  const Tensor in[] = {meta(x), meta(w), Tensor()};
  const Attrs attrs{{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}};
  return estimate_flops(OpKind::Conv2d, in, attrs);
}

// Output positions counted one by one: a position exists while its dilated window ends inside
// the padded input.
int64_t output_positions(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  int64_t n = 0;
  for (int64_t o = 0; o * stride + dilation * (kernel - 1) < size + 2 * pad; ++o) ++n;
  return n;
}

TEST_CASE("flops: conv2d counts 2 per multiply-add over every output position") {
  for (int64_t n : {1, 2})
    for (int64_t groups : {1, 2})
      for (int64_t k : {1, 3, 4})
        for (int64_t stride : {1, 2})
          for (int64_t pad : {0, 1})
            for (int64_t dilation : {1, 2}) {
              const int64_t c_in = 4, c_out = 6, h = 9, w = 7;
              if (dilation * (k - 1) + 1 > std::min(h, w) + 2 * pad) continue;
              const int64_t oh = output_positions(h, k, stride, pad, dilation);
              const int64_t ow = output_positions(w, k, stride, pad, dilation);
              const int64_t macs = n * c_out * oh * ow * (c_in / groups) * k * k;
              CAPTURE(k);
              CAPTURE(stride);
              CAPTURE(pad);
              CAPTURE(dilation);
              CHECK(conv_flops({n, c_in, h, w}, {c_out, c_in / groups, k, k}, {stride, stride}, {pad, pad},
                               {dilation, dilation}, groups) == 2 * macs);
            }
  // ResNet18's first convolution: 2 * 64*3*7*7 * 112*112 per image.
  CHECK(conv_flops({1, 3, 224, 224}, {64, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}, 1) == 2LL * 64 * 3 * 7 * 7 * 112 * 112);
  // A single value applies to both sides; shapes that do not fit give 0 instead of throwing.
  CHECK(conv_flops({1, 2, 5, 5}, {2, 2, 3, 3}, {1}, {0}, {1}, 1) == 2LL * 9 * 2 * 2 * 9);
  CHECK(conv_flops({1, 2, 5}, {2, 2, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1) == 0);
  CHECK(conv_flops({1, 2, 2, 2}, {2, 2, 5, 5}, {1, 1}, {0, 0}, {1, 1}, 1) == 0);
  CHECK(conv_flops({1, 2, 5, 5}, {2, 2, 3, 3}, {0, 1}, {0, 0}, {1, 1}, 1) == 0);
}

// Multiply-adds of a matrix product counted by looping over (i, j, k).
int64_t counted_gemm(int64_t m, int64_t k, int64_t n) {
  int64_t macs = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) ++macs;
  return 2 * macs;
}

TEST_CASE("flops: mm, addmm, bmm, matmul and linear count 2 * M * K * N") {
  for (int64_t m : {1, 3, 5})
    for (int64_t k : {1, 4, 7})
      for (int64_t n : {2, 3}) {
        const int64_t expected = counted_gemm(m, k, n);
        const Tensor a = meta({m, k}), b = meta({k, n});
        const Tensor mm_in[] = {a, b};
        CHECK(estimate_flops(OpKind::Mm, mm_in, {}) == expected);
        CHECK(estimate_flops(OpKind::Matmul, mm_in, {}) == expected);
        const Tensor addmm_in[] = {meta({n}), a, b};
        CHECK(estimate_flops(OpKind::Addmm, addmm_in, {{"beta", int64_t{1}}, {"alpha", int64_t{1}}}) == expected);
        const Tensor bmm_in[] = {meta({3, m, k}), meta({3, k, n})};
        CHECK(estimate_flops(OpKind::Bmm, bmm_in, {}) == 3 * expected);
        const Tensor linear_in[] = {a, meta({n, k}), Tensor()};
        CHECK(estimate_flops(OpKind::Linear, linear_in, {}) == expected);
        const Tensor linear_3d[] = {meta({2, m, k}), meta({n, k}), meta({n})};
        CHECK(estimate_flops(OpKind::Linear, linear_3d, {}) == 2 * expected);
      }
}

TEST_CASE("flops: matmul broadcasts batch dimensions and handles vectors") {
  struct Case {
    Shape a, b;
    int64_t batch, m, k, n;
  };
  for (const Case& c : {Case{{4}, {4}, 1, 1, 4, 1}, Case{{3, 4}, {4}, 1, 3, 4, 1}, Case{{4}, {4, 5}, 1, 1, 4, 5},
                        Case{{2, 3, 4}, {4, 5}, 2, 3, 4, 5}, Case{{2, 1, 3, 4}, {7, 4, 5}, 14, 3, 4, 5},
                        Case{{1, 3, 4}, {6, 4, 2}, 6, 3, 4, 2}}) {
    const Tensor in[] = {meta(c.a), meta(c.b)};
    CHECK(estimate_flops(OpKind::Matmul, in, {}) == c.batch * counted_gemm(c.m, c.k, c.n));
  }
  const Tensor mismatch[] = {meta({2, 3, 4}), meta({5, 4, 2})};
  CHECK(estimate_flops(OpKind::Matmul, mismatch, {}) == 0);
}

TEST_CASE("flops: add and mul count the first input's elements; other ops and proxies have none") {
  const Tensor x = meta({3, 5});
  const Tensor pair[] = {x, meta({5})};
  CHECK(estimate_flops(OpKind::Add, pair, {}) == 15);
  CHECK(estimate_flops(OpKind::Mul, pair, {}) == 15);
  const Tensor single[] = {x};
  CHECK(estimate_flops(OpKind::Mul, single, {{"other", 2.0}}) == 15);
  CHECK(estimate_flops(OpKind::Sub, pair, {}) == 0);
  CHECK(estimate_flops(OpKind::Relu, single, {}) == 0);
  CHECK(estimate_flops(OpKind::Mm, single, {}) == 0);
  struct Tag : ProxyTag {
    std::string describe() const override { return "proxy"; }
  };
  const Tensor proxy[] = {Tensor::make_proxy(std::make_shared<Tag>(), Shape{3, 4}), meta({4, 2})};
  CHECK(estimate_flops(OpKind::Mm, proxy, {}) == 0);
}

// Runs aten::linear by dispatching aten::add instead, as a kernel built on another op would.
struct LinearThroughAdd : DispatchHook {
  bool intercept(const OpCall& call, TensorList& outputs) override {
    if (call.op != OpKind::Linear) return false;
    outputs = {add(call.inputs[0], call.inputs[0])};
    return true;
  }
};

TEST_CASE("flops: the profiler records estimates and gives them to the innermost op") {
  LinearThroughAdd through_add;
  dispatch::HookGuard guard(&through_add);
  Profile prof({.with_flops = true});
  {
    auto running = prof.start();
    Tensor y = linear(ones({4, 3}), ones({2, 3}));
    Tensor z = ones({5}) * 2.0;
  }
  const EventList& events = prof.events();
  CHECK(events[testing::find_one(events, "aten::linear")].flops == 0);
  CHECK(events[testing::find_one(events, "aten::add")].flops == 12);
  CHECK(events[testing::find_one(events, "aten::mul")].flops == 5);
  CHECK(prof.key_averages().table().find("Total FLOPs") != std::string::npos);
  Profile without;
  {
    auto running = without.start();
    Tensor z = ones({5}) * 2.0;
  }
  CHECK(without.events()[1].flops == 0);
}

TEST_CASE("flops: a real conv2d call is recorded with the formula's value") {
  Profile prof({.with_flops = true});
  {
    auto running = prof.start();
    Tensor y = conv2d(ones({1, 3, 8, 8}), ones({4, 3, 3, 3}), Tensor(), {1, 1}, {1, 1});
  }
  const FunctionEvent& conv = prof.events()[testing::find_one(prof.events(), "aten::conv2d")];
  CHECK(conv.flops == 2LL * 8 * 8 * 4 * 3 * 3 * 3);
}

}  // namespace
}  // namespace tl::profiler
