// tests/distributed/test_ddp.cpp — DistributedDataParallel: print(), state_dict keys and buckets as PyTorch 1.13's
// (tests/distributed/gen_ddp_cases.py) and its errors in this process (a group of one); on two real ranks, training
// that matches one process on the global batch (also with no_sync and with three buckets), checkpoints saved by
// rank 0 and resumed everywhere, unused parameters and buffers (worker_ddp.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "distributed/ddp.h"
#include "nn/activation.h"
#include "nn/linear.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/distributed/ddp_models.h"
#include "tests/distributed/dist_testing.h"

namespace {

using tl::nn::parallel::DistributedDataParallel;
using tl::testing::SoloGroup;

nlohmann::json ddp_cases() {
  std::ifstream in("tests/distributed/data/ddp_cases.json");
  REQUIRE_MESSAGE(in.good(), "missing tests/distributed/data/ddp_cases.json (run tests/distributed/gen_ddp_cases.py)");
  return nlohmann::json::parse(in);
}

/// Linear a used, Linear c never.
class HalfUsed : public tl::nn::Module {
 public:
  HalfUsed() {
    a_ = register_module("a", std::make_shared<tl::nn::Linear>(2, 2));
    c_ = register_module("c", std::make_shared<tl::nn::Linear>(2, 2));
  }
  tl::Tensor forward(const tl::Tensor& x) override { return a_(x); }

 private:
  tl::nn::ModuleHandle<tl::nn::Linear> a_, c_;
};

void check_launch(const std::string& scenario, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  tl::testing::ScratchDir dir;
  const tl::distributed::LaunchResult result = tl::testing::run_scenario(scenario, 2, dir, timeout);
  CHECK_MESSAGE(result.exit_code == 0, scenario, ": ", result.message, " (the rank's stderr says why)");
}

/// Linear(in, out) without a bias.
std::shared_ptr<tl::nn::Linear> weight_only(int64_t in, int64_t out) {
  return std::make_shared<tl::nn::Linear>(tl::nn::LinearOptions{.in_features = in, .out_features = out, .bias = false});
}

/// Linear c registered first, then a and b, none with a bias; used a -> b -> c (gen_ddp_cases.py's OutOfOrder).
class OutOfOrder : public tl::nn::Module {
 public:
  OutOfOrder() {
    c_ = register_module("c", weight_only(500, 600));
    a_ = register_module("a", weight_only(64, 300));
    b_ = register_module("b", weight_only(300, 500));
  }
  tl::Tensor forward(const tl::Tensor& x) override { return c_(tl::relu(b_(tl::relu(a_(x))))); }

 private:
  tl::nn::ModuleHandle<tl::nn::Linear> c_, a_, b_;
};

/// The MLP of ddp_models.h without biases.
std::shared_ptr<tl::nn::Module> mlp_without_bias() {
  return std::make_shared<tl::nn::Sequential>(weight_only(64, 300), std::make_shared<tl::nn::ReLU>(),
                                              weight_only(300, 500), std::make_shared<tl::nn::ReLU>(),
                                              weight_only(500, 600));
}

/// Each bucket's size in bytes, in reduction order.
std::vector<int64_t> bucket_bytes(const DistributedDataParallel& ddp) {
  const std::vector<tl::Tensor> params = ddp.module()->parameters();
  std::vector<int64_t> out;
  for (const auto& bucket : ddp.bucket_indices()) {
    int64_t bytes = 0;
    for (size_t i : bucket) bytes += params[i].nbytes();
    out.push_back(bytes);
  }
  return out;
}

/// One bucket until the first backward, then, from the next forward on, PyTorch's rebuilt buckets.
void check_rebuild(const std::shared_ptr<tl::nn::Module>& model, double cap_mb, const nlohmann::json& expected) {
  DistributedDataParallel ddp(model, {.bucket_cap_mb = cap_mb});
  CHECK(bucket_bytes(ddp) == expected.at("initial_bucket_bytes").get<std::vector<int64_t>>());
  ddp(tl::randn({3, 64})).sum().backward();
  CHECK(bucket_bytes(ddp) == expected.at("initial_bucket_bytes").get<std::vector<int64_t>>());
  for (int step = 0; step < 2; ++step) ddp(tl::randn({3, 64})).sum().backward();  // rebuilt once, then kept
  CHECK(ddp.bucket_indices() == expected.at("rebuilt").get<std::vector<std::vector<size_t>>>());
}

}  // namespace

TEST_CASE("DistributedDataParallel before init_process_group is an error") {
  CHECK_THROWS_WITH_AS(DistributedDataParallel{tl::testing::ddp_cnn()},
                       "Default process group has not been initialized, please make sure to call init_process_group.",
                       tl::Error);
}

TEST_CASE("print(ddp) and its state_dict keys are PyTorch's") {
  SoloGroup solo;
  const nlohmann::json cases = ddp_cases();
  auto ddp = std::make_shared<DistributedDataParallel>(tl::testing::ddp_cnn());
  CHECK(tl::nn::repr(*ddp) == cases.at("cnn_repr").get<std::string>());
  std::vector<std::string> keys;
  for (const auto& [key, value] : ddp->state_dict()) keys.push_back(key);
  CHECK(keys == cases.at("cnn_state_dict_keys").get<std::vector<std::string>>());
  CHECK(ddp->module()->parameters().size() == ddp->parameters().size());
}

TEST_CASE("buckets: one in the first iteration, then rebuilt in the order gradients arrived, as PyTorch's") {
  SoloGroup solo;
  const nlohmann::json cases = ddp_cases();
  for (const auto& item : cases.at("rebuild_mlp").items()) {
    const std::string cap = item.key();
    CAPTURE(cap);
    check_rebuild(mlp_without_bias(), std::stod(cap), item.value());
  }
  check_rebuild(std::make_shared<OutOfOrder>(), 0.5, cases.at("rebuild_out_of_order"));
  // find_unused_parameters: assigned once from the parameters' order (the 1 MiB bucket holds the first layers).
  DistributedDataParallel found(tl::testing::ddp_mlp(), {.bucket_cap_mb = 0.5, .find_unused_parameters = true});
  const auto initial = cases.at("find_unused_mlp").at("initial_bucket_bytes").get<std::vector<int64_t>>();
  CHECK(bucket_bytes(found) == initial);
  for (int step = 0; step < 2; ++step) found(tl::randn({3, 64})).sum().backward();
  CHECK(bucket_bytes(found) == initial);
}

TEST_CASE("a group of one: backward through DDP leaves the plain model's gradients") {
  SoloGroup solo;
  tl::manual_seed(1);
  auto model = tl::testing::ddp_cnn();
  tl::manual_seed(1);
  auto plain = tl::testing::ddp_cnn();
  DistributedDataParallel ddp(model);
  const tl::Tensor x = tl::randn({3, 1, 8, 8});
  ddp(x).pow(2).sum().backward();
  (*plain)(x).pow(2).sum().backward();
  const auto got = model->parameters(), want = plain->parameters();
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].grad().sub(want[i].grad()).abs().max().item<double>() == 0);
}

TEST_CASE("a graph that outlives its DistributedDataParallel backpropagates without it") {
  SoloGroup solo;
  auto model = tl::testing::ddp_cnn();
  tl::Tensor loss;
  {
    DistributedDataParallel ddp(model);
    loss = ddp(tl::randn({2, 1, 8, 8})).sum();
  }
  loss.backward();  // the accumulators' hooks find no reducer and do nothing
  for (const tl::Tensor& p : model->parameters()) CHECK(p.grad().defined());
}

TEST_CASE("DistributedDataParallel's errors: arguments, and a parameter that got no gradient") {
  SoloGroup solo;
  CHECK_THROWS_WITH_AS(DistributedDataParallel(nullptr), "DistributedDataParallel: expected a module, got null",
                       tl::Error);
  CHECK_THROWS_WITH_AS(DistributedDataParallel(tl::testing::ddp_cnn(), {.bucket_cap_mb = 0}),
                       "DistributedDataParallel: bucket_cap_mb must be positive, got 0", tl::Error);
  CHECK_THROWS_WITH_AS(DistributedDataParallel(std::make_shared<tl::nn::ReLU>()),
                       "DistributedDataParallel: the module has no parameter that requires grad", tl::Error);
  DistributedDataParallel ddp(std::make_shared<HalfUsed>());
  ddp(tl::ones({1, 2})).sum().backward();
  CHECK_THROWS_WITH_AS(ddp(tl::ones({1, 2})),
                       "DistributedDataParallel: expected to have finished reduction in the prior iteration before "
                       "starting a new one. This error indicates that your module has parameters that were not used "
                       "in producing loss (or that backward was not called). Pass find_unused_parameters = true, and "
                       "make sure all forward outputs participate in calculating loss. Parameters that did not "
                       "receive grad on rank 0: c.weight, c.bias",
                       tl::Error);
  DistributedDataParallel found(std::make_shared<HalfUsed>(), {.find_unused_parameters = true});
  for (int step = 0; step < 2; ++step) found(tl::ones({1, 2})).sum().backward();
  CHECK(found.module()->get_parameter("a.weight").grad().defined());
  CHECK_FALSE(found.module()->get_parameter("c.weight").grad().defined());
}

TEST_CASE("register_comm_hook: every bucket through the hook, in order; its misuse") {
  SoloGroup solo;
  namespace hooks = tl::distributed::algorithms::ddp_comm_hooks::default_hooks;
  DistributedDataParallel ddp(tl::testing::ddp_mlp(), {.bucket_cap_mb = 0.01});
  std::vector<std::pair<size_t, bool>> seen;
  const tl::nn::parallel::CommHook allreduce = hooks::allreduce_hook();
  ddp.register_comm_hook([&](const tl::nn::parallel::GradBucket& bucket) {
    seen.emplace_back(bucket.index(), bucket.is_last());
    return allreduce(bucket);
  });
  CHECK_THROWS_WITH_AS(ddp.register_comm_hook(hooks::allreduce_hook()),
                       "register_comm_hook or register_builtin_comm_hook can only be called once.", tl::Error);
  ddp(tl::randn({3, 64})).sum().backward();  // the first iteration's one bucket
  for (int step = 0; step < 2; ++step) ddp(tl::randn({3, 64})).sum().backward();
  const size_t buckets = ddp.bucket_indices().size();
  REQUIRE(buckets > 1);
  REQUIRE(seen.size() == 1 + 2 * buckets);
  for (size_t i = 0; i < buckets; ++i) CHECK(seen[1 + i] == std::make_pair(i, i + 1 == buckets));

  DistributedDataParallel wrong(tl::testing::ddp_cnn());
  wrong.register_comm_hook([](const tl::nn::parallel::GradBucket& bucket) {
    tl::Tensor half = bucket.buffer().narrow(0, 0, 2);
    return tl::nn::parallel::CommHookResult{tl::distributed::all_reduce(half, tl::distributed::ReduceOp::SUM, nullptr,
                                                                        true),
                                            [half] { return half; }};
  });
  // the first iteration's one bucket: the CNN's 4 * 9 + 4 + 64 * 10 + 10 = 690 gradients
  CHECK_THROWS_WITH_AS(wrong(tl::randn({2, 1, 8, 8})).sum().backward(),
                       "DistributedDataParallel: the communication hook must give a tensor of its bucket's shape and "
                       "dtype, [690] torch.float32, got [2] torch.float32",
                       tl::Error);
}

TEST_CASE("comm hooks on two ranks: allreduce_hook as the built-in reduction, bf16_compress_hook's bfloat16 sums") {
  check_launch("ddp_comm_hooks");
}

TEST_CASE("two ranks x 4 samples train as one process on 8: parameters identical across ranks, within 1e-5") {
  check_launch("ddp_equivalence");
}

TEST_CASE("no_sync: two micro-batches accumulated locally, then one synchronized backward") {
  check_launch("ddp_no_sync");
}

TEST_CASE("two ranks x 8 digits train the digits CNN as one process on 16 for 20 steps, also with no_sync") {
  check_launch("ddp_digits");
}

// ResNet18's scenarios take ~25 s each on two idle cores (rank 0 also trains the one-process reference, 24 samples
// a step against rank 1's 8); the bound leaves room for a loaded machine and the sanitizer build.
TEST_CASE("two ranks x 8 train ResNet18 at 64x64 as one process on 16 for 20 steps") {
  check_launch("ddp_resnet18", std::chrono::seconds(400));
}

TEST_CASE("ResNet18 with no_sync accumulating two micro-batches of 4 per rank trains as one process") {
  check_launch("ddp_resnet18_no_sync", std::chrono::seconds(400));
}

TEST_CASE("three buckets all-reduced during backward give the same training") { check_launch("ddp_buckets"); }

TEST_CASE("a checkpoint saved by rank 0 and loaded by every rank resumes the same trajectory, bit for bit") {
  check_launch("ddp_checkpoint");
}

TEST_CASE("find_unused_parameters: a parameter one rank used gets the average, one no rank used no gradient") {
  check_launch("ddp_unused");
}

TEST_CASE("broadcast_buffers: rank 0's running statistics reach every rank at the next forward") {
  check_launch("ddp_buffers");
}
