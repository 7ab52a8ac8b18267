// tests/ops/test_random.cpp — the seeded ops give PyTorch 1.13's numbers bit for bit after tl::manual_seed
// (rng_streams.txt, seeds 0, 1 and 2^31 - 1, float32 and float64, sizes around the 16-element block);
// get_rng_state / set_rng_state resume a run exactly; misuse throws PyTorch's errors and draws nothing.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/storage.h"
#include "ops/ops.h"
#include "tests/support/rng_streams.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::refused;  // a refused call leaves the default stream where it was

using testing::kStreamDtypes;
using testing::kStreamSeeds;
using testing::stream_mismatch;
using testing::stream_name;
using testing::stream_values;

// `make()` after manual_seed(seed) against stream s<seed>.<rest>.
template <typename Make>
std::string seeded_mismatch(uint64_t seed, const std::string& rest, Make make) {
  manual_seed(seed);
  return stream_mismatch(stream_name(seed, rest), make());
}

// A tensor's digest as tests/reference/make_rng_references.py writes it: the values at kDigestAt, then the sum
// of all values' bit patterns modulo 2^64.
std::vector<std::string> digest(const Tensor& t) {
  static const std::vector<size_t> kDigestAt = {0, 1, 623, 624, 1247, 50000, 99986, 99987, 100002};
  const std::vector<std::string> words = stream_values(t);
  std::vector<std::string> out;
  for (size_t i : kDigestAt) out.push_back(words.at(i));
  uint64_t total = 0;
  for (const std::string& w : words) total += std::stoull(w, nullptr, 16);
  out.push_back(std::to_string(total));
  return out;
}

TEST_CASE("random ops: rand, randn, uniform_, normal_, dropout and bernoulli of 100003 values (many engine twists, the bulk path)") {
  constexpr int64_t kLarge = 100003;
  for (uint64_t seed : kStreamSeeds)
    for (const auto& named : kStreamDtypes) {
      const DType dtype = named.second;
      const std::string size = std::string(named.first) + "." + std::to_string(kLarge);
      CAPTURE(seed);
      CAPTURE(size);
      CHECK(seeded_mismatch(seed, "digest.rand." + size, [&] { return digest(rand({kLarge}, dtype)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.randn." + size, [&] { return digest(randn({kLarge}, dtype)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.uniform_." + size,
                            [&] { return digest(empty({kLarge}, dtype).uniform_(-2.0, 3.0)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.normal_." + size,
                            [&] { return digest(empty({kLarge}, dtype).normal_(0.1, 0.3)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.dropout." + size, [&] { return digest(dropout(ones({kLarge}, dtype), 0.3, true)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.bernoulli_." + size, [&] { return digest(empty({kLarge}, dtype).bernoulli_(0.3)); }) == "");
      CHECK(seeded_mismatch(seed, "digest.bernoulli." + size,
                            [&] { return digest(bernoulli(arange(0, kLarge, 1, dtype) / kLarge)); }) == "");
    }
}

TEST_CASE("random ops: rand, randn, uniform_, normal_ and normal are PyTorch's streams") {
  for (uint64_t seed : kStreamSeeds)
    for (const auto& named : kStreamDtypes) {
      const char* name = named.first;
      const DType dtype = named.second;
      CAPTURE(seed);
      const std::string d = std::string(name);
      for (int64_t n : {1, 5, 15, 16, 17, 33}) {
        const std::string size = d + "." + std::to_string(n);
        CHECK(seeded_mismatch(seed, "rand." + size, [&] { return rand({n}, dtype); }) == "");
        CHECK(seeded_mismatch(seed, "randn." + size, [&] { return randn({n}, dtype); }) == "");
      }
      for (int64_t n : {1, 5, 17, 33}) {
        const std::string size = d + "." + std::to_string(n);
        CHECK(seeded_mismatch(seed, "uniform_." + size, [&] { return empty({n}, dtype).uniform_(-2.0, 3.0); }) == "");
        CHECK(seeded_mismatch(seed, "normal_." + size, [&] { return empty({n}, dtype).normal_(0.1, 0.3); }) == "");
        CHECK(seeded_mismatch(seed, "normal." + size, [&] {
                return normal(arange(0, n, 1, dtype) * 0.5, arange(0, n, 1, dtype) * 0.05 + 0.1);
              }) == "");
      }
      // a transposed view is filled in memory order, as TensorIterator visits it
      CHECK(seeded_mismatch(seed, "uniform_.transposed." + d, [&] { return zeros({3, 6}, dtype).t().uniform_(); }) == "");
      CHECK(seeded_mismatch(seed, "normal_.transposed." + d, [&] { return zeros({3, 6}, dtype).t().normal_(); }) == "");
      CHECK(seeded_mismatch(seed, "bernoulli_.transposed." + d, [&] { return zeros({3, 6}, dtype).t().bernoulli_(0.3); }) == "");
      // randn after an odd count leaves a cached normal that the next randn takes first
      CHECK(seeded_mismatch(seed, "sequence." + d, [&] {
              Tensor a = randn({3}, dtype), b = randn({5}, dtype), c = rand({2}, dtype);
              return cat({a, b, c});
            }) == "");
    }
}

TEST_CASE("random ops: dropout in training, bernoulli and bernoulli_ are PyTorch's streams") {
  for (uint64_t seed : kStreamSeeds)
    for (const auto& named : kStreamDtypes)
      for (int64_t n : {5, 17}) {
        const char* name = named.first;
        const DType dtype = named.second;
        CAPTURE(seed);
        const std::string size = std::string(name) + "." + std::to_string(n);
        CHECK(seeded_mismatch(seed, "dropout." + size, [&] { return dropout(arange(1, n + 1, 1, dtype) * 0.7, 0.3, true); }) == "");
        CHECK(seeded_mismatch(seed, "bernoulli_." + size, [&] { return empty({n}, dtype).bernoulli_(0.3); }) == "");
        CHECK(seeded_mismatch(seed, "bernoulli." + size, [&] { return bernoulli(arange(0, n, 1, dtype) / n); }) == "");
      }
}

TEST_CASE("random ops: randint, randperm and multinomial are PyTorch's streams") {
  for (uint64_t seed : kStreamSeeds) {
    CAPTURE(seed);
    for (int64_t n : {1, 5, 17, 33}) {
      const std::string size = "." + std::to_string(n);
      CHECK(seeded_mismatch(seed, "randint" + size, [&] { return randint(-3, 10, {n}); }) == "");
      CHECK(seeded_mismatch(seed, "randint_big" + size, [&] { return randint(int64_t{1} << 40, {n}); }) == "");
      CHECK(seeded_mismatch(seed, "randperm" + size, [&] { return randperm(n); }) == "");
    }
    const Tensor w = from_vector<float>({0.1f, 0.0f, 2.0f, 1.0f, 0.5f}, {5});
    for (int64_t n : {5, 17})
      CHECK(seeded_mismatch(seed, "multinomial.replacement." + std::to_string(n), [&] { return multinomial(w, n, true); }) == "");
    const Tensor w7 = from_vector<float>({0.1f, 0.0f, 2.0f, 1.0f, 0.5f, 3.0f, 0.25f}, {7});
    CHECK(seeded_mismatch(seed, "multinomial.noreplacement.4", [&] { return w7.multinomial(4); }) == "");
    const Tensor rows = from_vector<double>({1.0, 2.0, 3.0, 0.0, 5.0, 1.0}, {2, 3});
    CHECK(seeded_mismatch(seed, "multinomial.rows.6", [&] { return multinomial(rows, 6, true); }) == "");
  }
}

TEST_CASE("random ops: the *_like forms take the input's shape and dtype") {
  const Tensor x = zeros({2, 3}, DType::Float64);
  manual_seed(4);
  const Tensor expected_rand = rand({2, 3}, DType::Float64), expected_randn = randn({2, 3}, DType::Float64);
  const Tensor expected_int = randint(2, 9, {2, 3}, DType::Float64);
  manual_seed(4);
  CHECK_TENSOR_CLOSE(rand_like(x), expected_rand, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(randn_like(x), expected_randn, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(randint_like(x, 2, 9), expected_int, 0.0, 0.0);
  CHECK(rand_like(x, DType::Float32).dtype() == DType::Float32);
  CHECK(randint_like(x, 5).shape() == Shape{2, 3});
}

TEST_CASE("random ops: get_rng_state / set_rng_state resume a run with dropout exactly") {
  manual_seed(3);
  (void)randn({5});
  const std::vector<uint8_t> state = get_rng_state();
  const Tensor x = randn({4, 33});
  const Tensor first = dropout(x, 0.4, true), first_noise = randn({3});
  set_rng_state(state);
  CHECK_TENSOR_CLOSE(randn({4, 33}), x, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(dropout(x, 0.4, true), first, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(randn({3}), first_noise, 0.0, 0.0);
}

TEST_CASE("randperm: an n past the allocation limit is a tl::Error naming n, before any draw or allocation") {
  manual_seed(8);
  const std::vector<uint8_t> before = get_rng_state();
  const int64_t limit = allocation_limit();
  for (const DType dtype : {DType::Int64, DType::Int32, DType::Float64}) {
    const int64_t n = dtype == DType::Int32 ? int64_t{2147483647} : int64_t{1} << (dtype == DType::Int64 ? 62 : 53);
    if (n <= limit / 8) continue;  // a machine with more memory than that has nothing to refuse
    CAPTURE(dtype);
    CHECK_THROWS_WITH_AS(randperm(n, dtype),
                         ("randperm: n=" + std::to_string(n) + " int64 values would exceed the allocation limit of " +
                          std::to_string(limit) + " bytes (see tl::set_allocation_limit)").c_str(),
                         Error);
  }
  CHECK(get_rng_state() == before);
  const int64_t previous = set_allocation_limit(allocator_stats().bytes_in_use + 1000);
  CHECK_THROWS_WITH_AS(randperm(200), doctest::Contains("randperm: n=200 int64 values would exceed"), Error);
  set_allocation_limit(previous);
  CHECK(get_rng_state() == before);
}

TEST_CASE("random ops: misuse throws PyTorch's errors and draws nothing") {
  refused([] { return randint(5, 5, {3}); }, "randint: random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  refused([] { return randint(0, {2}); }, "randint: random_ expects 'from' to be less than 'to', but got from=0 >= to=0");
  refused([] { return randperm(-1); }, "randperm: n must be non-negative, got -1");
  refused([] { return randperm(20000000, DType::Float32); },
          "randperm: n cannot be greater than 2^24+1 for torch.float32 type, got 20000000");
  refused([] { return empty({3}).bernoulli_(1.5); }, "bernoulli_: expects p to be in [0, 1], but got p=1.5");
  refused([] { return bernoulli(from_vector<float>({0.5f, -0.25f}, {2})); },
          "bernoulli: expected all probabilities in [0, 1], got -0.25 at index 1");
  refused([] { return empty({3}).uniform_(2.0, 1.0); }, "uniform_: expects to return a [from, to) range, but found from=2 > to=1");
  refused([] { return empty({3}).normal_(0.0, -1.0); }, "normal_: expects std >= 0.0, but found std -1");
  refused([] { return normal(zeros({3}), from_vector<float>({1.0f, -2.0f, 1.0f}, {3})); },
          "normal: expects all elements of std >= 0.0, got -2");
  refused([] { return empty({3}, DType::Int64).uniform_(); }, "uniform_: expected a floating point dtype, got torch.int64");
  const Tensor w = from_vector<float>({1.0f, -1.0f, 2.0f}, {3});
  refused([&] { return multinomial(w, 2, true); },
          "multinomial: invalid multinomial distribution (encountering probability entry < 0), got -1");
  refused([&] { return multinomial(w, 2); },
          "multinomial: probability tensor contains either `inf`, `nan` or element < 0, got -1");
  refused([] { return multinomial(zeros({2, 3}), 2, true); },
          "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row 0");
  refused([] { return multinomial(ones({3}), 4); },
          "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement, got 4 samples of 3 categories");
  refused([] { return multinomial(ones({3}), 0, true); }, "multinomial: cannot sample n_sample <= 0 samples, got 0");
  refused([] { return multinomial(ones({1, 2, 3}), 1); }, "multinomial: prob_dist must be 1 or 2 dim, got 3 dims");
  refused([] { return multinomial(ones({3}, DType::Int64), 1); },
          "multinomial: only supports floating-point dtypes for input, got torch.int64");
}

TEST_CASE("random ops: an in-place fill that throws leaves the tensor as it was") {
  const Tensor x = full({4}, 2.5);
  CHECK_THROWS_AS(x.clone().bernoulli_(-0.5), Error);
  Tensor y = x.clone();
  CHECK_THROWS_AS(y.uniform_(1.0, 0.0), Error);
  CHECK_THROWS_AS(y.normal_(0.0, -2.0), Error);
  CHECK_TENSOR_CLOSE(y, x, 0.0, 0.0);
}

}  // namespace
}  // namespace tl
