// tests/distributed/worker_ddp.cpp — the DistributedDataParallel scenarios of dist_worker. The reference is the
// same model trained in one process on the whole global batch, computed by each rank without any collective; the
// ranks start from different seeds, so agreeing with rank 0's reference also checks the initial broadcast.
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "distributed/ddp.h"
#include "distributed/distributed.h"
#include "nn/batch_norm.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/flatten.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "ops/ops.h"
#include "optim/checkpoint.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp_models.h"
#include "tests/distributed/worker.h"

namespace dist = tl::distributed;
using tl::nn::parallel::DistributedDataParallel;
using namespace std::chrono_literals;

namespace {

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
  check(excess <= 1e-7, what + ": differs from the one-process run by " + std::to_string(excess) +
                            " beyond 1e-5 relative");
}

struct Run {
  std::string model = "cnn";
  bool no_sync = false;
  double bucket_cap_mb = 25;
};

/// Trains rank r's DDP model on samples [4r, 4r + 4) of each global batch of 8, and the reference on all 8;
/// checks the parameters agree across ranks and with the reference after every step.
void train_and_compare(const Run& run) {
  const int64_t rank = dist::get_rank(), world = dist::get_world_size();
  const int64_t global = 8, local = global / world, steps = 10;
  auto make = [&] {  // the MLP (three buckets at bucket_cap_mb = 0.01) reads the 8x8 images flattened
    return run.model == "cnn" ? tl::testing::ddp_cnn()
                              : std::make_shared<tl::nn::Sequential>(std::make_shared<tl::nn::Flatten>(),
                                                                     tl::testing::ddp_mlp());
  };
  tl::manual_seed(100 + static_cast<uint64_t>(rank));
  auto ddp = std::make_shared<DistributedDataParallel>(make(), tl::nn::parallel::DistributedDataParallelOptions{
                                                                   .bucket_cap_mb = run.bucket_cap_mb});
  tl::manual_seed(100);
  std::shared_ptr<tl::nn::Module> reference = make();
  tl::manual_seed(7);
  const tl::Tensor inputs = tl::randn({steps, global, 1, 8, 8});
  const tl::Tensor targets = tl::randint(10, {steps, global});
  const std::vector<tl::Tensor> params = ddp->module()->parameters(), expected = reference->parameters();
  for (size_t i = 0; i < params.size(); ++i) check(same(params[i], expected[i]), "rank 0's initial parameters");
  tl::optim::SGD opt(ddp->parameters(), {.lr = 0.1, .momentum = 0.9});
  tl::optim::SGD reference_opt(reference->parameters(), {.lr = 0.1, .momentum = 0.9});
  tl::nn::CrossEntropyLoss criterion;
  for (int64_t s = 0; s < steps; ++s) {
    const tl::Tensor x = inputs.select(0, s), y = targets.select(0, s);
    opt.zero_grad();
    if (run.no_sync) {  // two micro-batches of local / 2: the first accumulates locally, the second synchronizes
      const int64_t half = local / 2;
      {
        auto guard = ddp->no_sync();
        criterion((*ddp)(x.narrow(0, rank * local, half)), y.narrow(0, rank * local, half)).div(2.0).backward();
      }
      criterion((*ddp)(x.narrow(0, rank * local + half, half)), y.narrow(0, rank * local + half, half))
          .div(2.0)
          .backward();
    } else {
      criterion((*ddp)(x.narrow(0, rank * local, local)), y.narrow(0, rank * local, local)).backward();
    }
    opt.step();
    reference_opt.zero_grad();
    criterion((*reference)(x), y).backward();
    reference_opt.step();
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string what = run.model + " step " + std::to_string(s) + " parameter " + std::to_string(i);
      check_same_on_all_ranks(params[i], what);
      check_close(params[i], expected[i], what);
    }
  }
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
