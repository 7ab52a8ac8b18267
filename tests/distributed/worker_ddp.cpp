// tests/distributed/worker_ddp.cpp — the DistributedDataParallel scenarios of dist_worker. The reference is the
// same model trained in one process on the whole global batch, computed by each rank without any collective; the
// ranks start from different seeds, so agreeing with rank 0's reference also checks the initial broadcast.
#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "data/digits.h"
#include "distributed/ddp.h"
#include "distributed/distributed.h"
#include "nn/batch_norm.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/flatten.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "models/resnet.h"
#include "ops/ops.h"
#include "optim/checkpoint.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp_models.h"
#include "tests/distributed/worker.h"

namespace dist = tl::distributed;
using tl::nn::parallel::DistributedDataParallel;
using namespace std::chrono_literals;

namespace {

/// ResNet18's steps: the 20 (a scenario takes ~25 s on two idle cores, ~40 s on a loaded machine); 4 under
/// AddressSanitizer, whose build ran one 20-step scenario in 290 s (7x the release build on the same loaded machine):
/// the sanitizer looks for memory errors, which every step repeats, and the release run shows the 20 steps.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_WORKER_ASAN 1
#endif
#endif
#if defined(TL_WORKER_ASAN) || defined(__SANITIZE_ADDRESS__)
constexpr int64_t kResNetSteps = 4;
#else
constexpr int64_t kResNetSteps = 20;
#endif

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("check failed: " + what);
}

/// Same shape and values, bit for bit.
bool same(const tl::Tensor& a, const tl::Tensor& b) {
  return a.shape() == b.shape() && (a.numel() == 0 || a.sub(b).abs().max().item<double>() == 0);
}

/// Every rank holds the same values in `t` (bit for bit).
void check_same_on_all_ranks(const tl::Tensor& t, const std::string& what) {
  std::vector<tl::Tensor> all;
  for (int64_t r = 0; r < dist::get_world_size(); ++r) all.push_back(tl::zeros(t.shape(), t.dtype()));
  dist::all_gather(all, t.contiguous());
  for (size_t r = 1; r < all.size(); ++r)
    check(same(all[r], all[0]), what + ": rank " + std::to_string(r) + " differs");
}

/// |actual - expected| <= 1e-5 |expected| + 1e-7 everywhere.
void check_close(const tl::Tensor& actual, const tl::Tensor& expected, const std::string& what) {
  const double excess = actual.sub(expected).abs().sub(expected.abs().mul(1e-5)).max().item<double>();
  check(excess <= 1e-7, tl::detail::str_cat(what, ": differs from the one-process run by ", excess,
                                            " beyond 1e-5 relative (+ 1e-7)"));
}

struct Run {
  std::string model = "cnn";  ///< "cnn", "mlp" (both on 8x8 noise), "digits_cnn" (on the digits), "resnet18" (64x64)
  bool no_sync = false;
  double bucket_cap_mb = 25;
  int64_t global = 8;  ///< the global batch, split evenly over the ranks
  int64_t steps = 10;
  bool check_each_step = true;  ///< else only after the last step (ResNet18: 62 all-gathers of 11M parameters)
  double lr = 0.1;  ///< SGD's, with momentum 0.9
};

std::shared_ptr<tl::nn::Module> make_model(const std::string& name) {
  if (name == "cnn") return tl::testing::ddp_cnn();
  if (name == "digits_cnn") return tl::testing::digits_cnn();
  if (name == "resnet18") return tl::models::resnet18({.num_classes = 10});
  // the MLP (three buckets at bucket_cap_mb = 0.01) reads the 8x8 images flattened
  return std::make_shared<tl::nn::Sequential>(std::make_shared<tl::nn::Flatten>(), tl::testing::ddp_mlp());
}

/// The steps' global batches: (steps, global, C, H, W) inputs and (steps, global) class targets.
std::pair<tl::Tensor, tl::Tensor> make_batches(const Run& run) {
  if (run.model == "digits_cnn") {  // the first steps * global digits, scaled to [0, 1]
    const tl::data::TensorDataset digits = tl::data::load_digits();
    const int64_t n = run.steps * run.global;
    return {digits.data().narrow(0, 0, n).div(16.0).reshape({run.steps, run.global, 1, 8, 8}),
            digits.target().narrow(0, 0, n).reshape({run.steps, run.global})};
  }
  tl::manual_seed(7);
  const tl::Tensor inputs = run.model == "resnet18" ? tl::randn({run.steps, run.global, 3, 64, 64})
                                                    : tl::randn({run.steps, run.global, 1, 8, 8});
  return {inputs, tl::randint(10, {run.steps, run.global})};
}

/// The reference's gradients for one global batch: one process, no collective, summed in DDP's grouping: each
/// rank's micro-batches (each loss divided by their count; with batch norm each normalizes over its own batch, as
/// PyTorch's DDP without SyncBatchNorm does over each rank's micro-batch) accumulated, then the ranks' sums added in
/// rank order. Another summation order changes the last bits, and training amplifies them: in ResNet18 they soon
/// flip a max-pool or ReLU decision (with the four micro-batches accumulated in one sequence the 7e-9 difference of
/// step 0 reached 7e-4 by step 2); in the small CNNs, the whole global batch run as one reached 1.1e-7 after 10-20
/// steps of SGD with momentum, the bound of check_close, with a change of the exponential's last bit.
void reference_backward(tl::nn::Module& reference, const Run& run, const tl::Tensor& x, const tl::Tensor& y,
                        int64_t world, int64_t micro) {
  tl::nn::CrossEntropyLoss criterion;
  const int64_t local = run.global / world, micro_batch = local / micro;
  std::vector<tl::Tensor> params = reference.parameters();
  std::vector<tl::Tensor> total(params.size());
  for (int64_t r = 0; r < world; ++r) {
    for (tl::Tensor& p : params) p.mutable_grad() = tl::Tensor();
    for (int64_t m = 0; m < micro; ++m) {
      const int64_t from = r * local + m * micro_batch;
      criterion(reference(x.narrow(0, from, micro_batch)), y.narrow(0, from, micro_batch))
          .div(static_cast<double>(world * micro))
          .backward();
    }
    tl::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) total[i] = r == 0 ? params[i].grad() : total[i].add(params[i].grad());
  }
  for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = total[i];
}

/// Trains rank r's DDP model on its share of each global batch (samples [r * local, (r + 1) * local), in `micro`
/// micro-batches with no_sync), and, on rank 0, the reference on the whole global batch (reference_backward);
/// checks the parameters are identical across ranks and within 1e-5 of the reference, after every step or after
/// the last.
void train_and_compare(const Run& run) {
  const int64_t rank = dist::get_rank(), world = dist::get_world_size();
  const int64_t local = run.global / world, micro = run.no_sync ? 2 : 1, micro_batch = local / micro;
  const auto [inputs, targets] = make_batches(run);
  tl::manual_seed(100 + static_cast<uint64_t>(rank));
  auto ddp = std::make_shared<DistributedDataParallel>(make_model(run.model),
                                                       tl::nn::parallel::DistributedDataParallelOptions{
                                                           .bucket_cap_mb = run.bucket_cap_mb});
  std::shared_ptr<tl::nn::Module> reference;
  std::vector<tl::Tensor> expected;
  if (rank == 0) {
    tl::manual_seed(100);
    reference = make_model(run.model);
    expected = reference->parameters();
  }
  const std::vector<tl::Tensor> params = ddp->module()->parameters();
  for (size_t i = 0; i < expected.size(); ++i) check(same(params[i], expected[i]), "rank 0's initial parameters");
  const tl::optim::SGDOptions sgd{.lr = run.lr, .momentum = 0.9};
  tl::optim::SGD opt(ddp->parameters(), sgd);
  std::unique_ptr<tl::optim::SGD> reference_opt;
  if (reference) reference_opt = std::make_unique<tl::optim::SGD>(reference->parameters(), sgd);
  tl::nn::CrossEntropyLoss criterion;
  auto compare = [&](const std::string& when) {
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string what = run.model + " " + when + " parameter " + std::to_string(i);
      check_same_on_all_ranks(params[i], what);
      if (reference) check_close(params[i], expected[i], what);
    }
  };
  for (int64_t s = 0; s < run.steps; ++s) {
    const tl::Tensor x = inputs.select(0, s), y = targets.select(0, s);
    opt.zero_grad();
    // micro-batches of local / micro: all but the last accumulate locally, the last synchronizes
    for (int64_t m = 0; m < micro; ++m) {
      std::optional<DistributedDataParallel::NoSync> guard;
      if (m + 1 < micro) guard.emplace(*ddp);
      const int64_t from = rank * local + m * micro_batch;
      criterion((*ddp)(x.narrow(0, from, micro_batch)), y.narrow(0, from, micro_batch))
          .div(static_cast<double>(micro))
          .backward();
    }
    opt.step();
    if (reference) {
      reference_opt->zero_grad();
      reference_backward(*reference, run, x, y, world, micro);
      reference_opt->step();
    }
    if (run.check_each_step) compare("step " + std::to_string(s));
  }
  if (!run.check_each_step) compare("after " + std::to_string(run.steps) + " steps");
}

/// Trains 6 steps straight; then again 3 steps, rank 0 saving a checkpoint (save_checkpoint: through the atomic
/// file writer), and 3 more steps in a fresh model and optimizer that every rank loaded from it: the parameters
/// end bit for bit where the straight run's did.
void checkpoint_resume(const std::string& dir) {
  const int64_t rank = dist::get_rank(), local = 8 / dist::get_world_size();
  tl::manual_seed(7);
  const tl::Tensor inputs = tl::randn({6, 8, 1, 8, 8});
  const tl::Tensor targets = tl::randint(10, {6, 8});
  tl::nn::CrossEntropyLoss criterion;
  struct Trainer {
    std::shared_ptr<DistributedDataParallel> ddp;
    std::unique_ptr<tl::optim::SGD> opt;
  };
  auto make = [&](uint64_t seed) {
    tl::manual_seed(seed + static_cast<uint64_t>(rank));
    auto ddp = std::make_shared<DistributedDataParallel>(tl::testing::ddp_cnn());
    return Trainer{ddp, std::make_unique<tl::optim::SGD>(ddp->parameters(), tl::optim::SGDOptions{.lr = 0.1,
                                                                                                  .momentum = 0.9})};
  };
  auto train = [&](Trainer& t, int64_t from, int64_t to) {
    for (int64_t s = from; s < to; ++s) {
      t.opt->zero_grad();
      criterion((*t.ddp)(inputs.select(0, s).narrow(0, rank * local, local)),
                targets.select(0, s).narrow(0, rank * local, local))
          .backward();
      t.opt->step();
    }
  };
  Trainer straight = make(100);
  train(straight, 0, 6);
  Trainer first = make(100);
  train(first, 0, 3);
  const std::string path = dir + "/checkpoint.safetensors";
  if (rank == 0) tl::optim::save_checkpoint(path, *first.ddp->module(), *first.opt);
  dist::barrier();
  Trainer resumed = make(300);
  tl::optim::load_checkpoint(path, *resumed.ddp->module(), *resumed.opt);
  train(resumed, 3, 6);
  const auto got = resumed.ddp->module()->parameters(), want = straight.ddp->module()->parameters();
  for (size_t i = 0; i < got.size(); ++i) {
    check(same(got[i], want[i]), "resumed parameter " + std::to_string(i) + " continues the straight run exactly");
    check_same_on_all_ranks(got[i], "resumed parameter " + std::to_string(i));
  }
}

/// Linear a always, b only on rank 0, c never.
class PartlyUsed : public tl::nn::Module {
 public:
  explicit PartlyUsed(bool use_b) : use_b_(use_b) {
    a_ = register_module("a", std::make_shared<tl::nn::Linear>(4, 4));
    b_ = register_module("b", std::make_shared<tl::nn::Linear>(4, 4));
    c_ = register_module("c", std::make_shared<tl::nn::Linear>(4, 4));
  }
  tl::Tensor forward(const tl::Tensor& x) override { return use_b_ ? a_(x).add(b_(x)) : a_(x); }

 private:
  bool use_b_;
  tl::nn::ModuleHandle<tl::nn::Linear> a_, b_, c_;
};

void unused_parameters() {
  const int64_t rank = dist::get_rank();
  tl::manual_seed(3);
  auto model = std::make_shared<PartlyUsed>(rank == 0);
  DistributedDataParallel ddp(model, {.find_unused_parameters = true});
  tl::manual_seed(11 + static_cast<uint64_t>(rank));
  for (int step = 0; step < 2; ++step) {
    ddp.zero_grad(true);
    ddp(tl::randn({3, 4})).sum().backward();
    for (const auto& [name, p] : model->named_parameters()) {
      if (name.rfind("c.", 0) == 0) {
        check(!p.grad().defined(), name + ": a parameter no rank used keeps no gradient");
      } else {
        check(p.grad().defined(), name + " has a gradient on every rank");
        check_same_on_all_ranks(p.grad(), name + "'s gradient");
      }
    }
  }
}

void buffers(const std::string& dir, bool broadcast) {
  const int64_t rank = dist::get_rank();
  tl::manual_seed(5);
  auto model = std::make_shared<tl::nn::Sequential>(
      std::make_shared<tl::nn::Conv2d>(tl::nn::Conv2dOptions{.in_channels = 1, .out_channels = 2, .kernel_size = 3}),
      std::make_shared<tl::nn::BatchNorm2d>(2), std::make_shared<tl::nn::Flatten>(),
      std::make_shared<tl::nn::Linear>(2 * 6 * 6, 3));
  DistributedDataParallel ddp(model, {.broadcast_buffers = broadcast});
  tl::manual_seed(20 + static_cast<uint64_t>(rank));  // each rank its own data: its own running statistics
  ddp(tl::randn({4, 1, 8, 8})).sum().backward();
  const tl::Tensor running_mean = model->get_buffer("1.running_mean");
  std::vector<tl::Tensor> after_train = {tl::zeros({2}), tl::zeros({2})};
  dist::all_gather(after_train, running_mean);
  check(!same(after_train[0], after_train[1]), "the ranks' running means differ after training on their data");
  model->eval();
  {
    tl::NoGradGuard no_grad;
    ddp(tl::randn({1, 1, 8, 8}));  // starts by broadcasting rank 0's buffers (the previous forward synchronized)
  }
  std::vector<tl::Tensor> after_eval = {tl::zeros({2}), tl::zeros({2})};
  dist::all_gather(after_eval, running_mean);
  check(same(after_eval[0], after_eval[1]) == broadcast, "running means agree after the next forward exactly when "
                                                         "broadcast_buffers");
  check(same(after_eval[0], after_train[0]), "rank 0's running mean is its own");
  std::ofstream(dir + "/buffers" + std::to_string(rank) + ".txt") << "ok";
}

/// Communication hooks on two ranks: allreduce_hook trains exactly as DDP's built-in reduction; bf16_compress_hook
/// leaves each gradient the bfloat16 sum of the ranks' gradients halved in bfloat16, computed here from the ranks'
/// plain (DDP-less) gradients.
void comm_hooks() {
  namespace hooks = tl::distributed::algorithms::ddp_comm_hooks::default_hooks;
  const int64_t rank = dist::get_rank();
  auto make = [&](uint64_t seed) {
    tl::manual_seed(seed);
    return tl::testing::ddp_mlp();
  };
  auto plain = make(1), hooked = make(1 + static_cast<uint64_t>(rank));
  DistributedDataParallel builtin(plain), with_hook(hooked, {.bucket_cap_mb = 0.01});
  with_hook.register_comm_hook(hooks::allreduce_hook());
  tl::optim::SGD opt_builtin(builtin.parameters(), {.lr = 0.1}), opt_hook(with_hook.parameters(), {.lr = 0.1});
  tl::manual_seed(40 + static_cast<uint64_t>(rank));
  for (int step = 0; step < 3; ++step) {
    const tl::Tensor x = tl::randn({4, 64});
    opt_builtin.zero_grad();
    opt_hook.zero_grad();
    builtin(x).pow(2).sum().backward();
    with_hook(x).pow(2).sum().backward();
    opt_builtin.step();
    opt_hook.step();
  }
  const auto a = plain->parameters(), b = hooked->parameters();
  for (size_t i = 0; i < a.size(); ++i) check(same(a[i], b[i]), "allreduce_hook: parameter " + std::to_string(i));

  auto compressed = make(2), local = make(2);
  DistributedDataParallel bf16(compressed);
  bf16.register_comm_hook(hooks::bf16_compress_hook());
  const tl::Tensor x = tl::randn({4, 64});
  bf16(x).pow(2).sum().backward();
  (*local)(x).pow(2).sum().backward();
  const auto got = compressed->parameters(), mine = local->parameters();
  for (size_t i = 0; i < got.size(); ++i) {
    std::vector<tl::Tensor> all = {tl::zeros(mine[i].shape()), tl::zeros(mine[i].shape())};
    dist::all_gather(all, mine[i].grad());
    const tl::Tensor expected = all[0].div(2.0).to(tl::kBFloat16).add(all[1].div(2.0).to(tl::kBFloat16)).to(tl::kFloat);
    check(same(got[i].grad(), expected), "bf16_compress_hook: gradient " + std::to_string(i));
    check(!same(got[i].grad(), all[0].add(all[1]).div(2.0)), "bf16_compress_hook: gradient " + std::to_string(i) +
                                                                " is compressed");
  }
}

}  // namespace

int ddp_scenario(const std::string& scenario, const std::string& dir) {
  dist::init_process_group("gloo", {.timeout = 20s});
  if (scenario == "ddp_equivalence") {
    train_and_compare({});
  } else if (scenario == "ddp_no_sync") {
    train_and_compare({.no_sync = true});
  } else if (scenario == "ddp_buckets") {
    train_and_compare({.model = "mlp", .bucket_cap_mb = 0.01});
    train_and_compare({.model = "mlp", .no_sync = true, .bucket_cap_mb = 0.01});
  } else if (scenario == "ddp_digits") {  // the must-show: 2 ranks x 8 digits, 20 steps
    train_and_compare({.model = "digits_cnn", .global = 16, .steps = 20});
    train_and_compare({.model = "digits_cnn", .no_sync = true, .global = 16, .steps = 20});
  } else if (scenario == "ddp_resnet18") {
    train_and_compare({.model = "resnet18", .global = 16, .steps = kResNetSteps, .check_each_step = false,
                       .lr = 0.01});
  } else if (scenario == "ddp_resnet18_no_sync") {
    train_and_compare({.model = "resnet18", .no_sync = true, .global = 16, .steps = kResNetSteps,
                       .check_each_step = false, .lr = 0.01});
  } else if (scenario == "ddp_comm_hooks") {
    comm_hooks();
  } else if (scenario == "ddp_checkpoint") {
    checkpoint_resume(dir);
  } else if (scenario == "ddp_unused") {
    unused_parameters();
  } else if (scenario == "ddp_buffers") {
    buffers(dir, true);
    buffers(dir, false);
  } else {
    return 2;
  }
  dist::destroy_process_group();
  return 0;
}
