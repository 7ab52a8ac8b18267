// examples/train_digits.cpp — trains a small CNN on scikit-learn's digits (fixed seeded 80/20 split) and
// fails unless it reaches 97% test accuracy. Every epoch's batch order is a function of (seed, epoch).
//
//   train_digits [--epochs N] [--seed S] [--bf16] [--profile] [--export-init PATH] [--resume-test]
//
// --bf16 runs the forward passes and the loss under tl::autocast (bfloat16 convolutions and linear
// layer, float32 parameters and optimizer), as torch.autocast("cpu") does. --profile records the last
// epoch's training batches and prints the profiler's table (where a small model's time goes).
// --export-init writes the initial weights, the split and every epoch's batch order to a safetensors
// file for examples/train_digits_pt.py (PyTorch 1.13) and exits; --resume-test trains straight and
// through a checkpoint taken halfway, and fails unless the parameters are bit-identical.
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/autocast.h"
#include "core/error.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "data/dataloader.h"
#include "data/digits.h"
#include "data/random_split.h"
#include "nn/layers.h"
#include "nn/safetensors.h"
#include "ops/ops.h"
#include "optim/checkpoint.h"
#include "optim/lr_scheduler.h"
#include "optim/sgd.h"
#include "profiler/profile.h"

namespace data = tl::data;
namespace nn = tl::nn;
namespace optim = tl::optim;
using tl::Tensor;

namespace {

constexpr int64_t kBatchSize = 32;
constexpr double kLr = 0.05;
constexpr double kMomentum = 0.9;
constexpr double kTargetAccuracy = 97.0;  // percent

struct Args {
  int epochs = 12;
  uint64_t seed = 0;
  std::string export_init;  // empty: train
  bool resume_test = false;
  bool bf16 = false;  // forward and loss under tl::autocast
  bool profile = false;  // the last epoch's training batches under the profiler
};

uint64_t parse_count(const char* flag, const char* text, uint64_t min) {
  uint64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  TL_CHECK(ec == std::errc() && ptr == end && value >= min, "train_digits: ", flag, " expects a whole number >= ",
           min, ", got '", text, "'");
  return value;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--resume-test") {
      args.resume_test = true;
    } else if (flag == "--profile") {
      args.profile = true;
    } else if (flag == "--bf16") {
      args.bf16 = true;
    } else if ((flag == "--epochs" || flag == "--seed" || flag == "--export-init") && has_value) {
      const char* value = argv[++i];
      if (flag == "--epochs") {
        args.epochs = static_cast<int>(parse_count("--epochs", value, 1));
        TL_CHECK(args.epochs <= 1000, "train_digits: --epochs expects at most 1000, got ", args.epochs);
      } else if (flag == "--seed") {
        args.seed = parse_count("--seed", value, 0);
      } else {
        args.export_init = value;
      }
    } else {
      TL_CHECK(false, "train_digits: unknown flag or missing value '", flag,
               "' (flags: --epochs N, --seed S, --bf16, --profile, --export-init PATH, --resume-test)");
    }
  }
  TL_CHECK(args.export_init.empty() || !args.resume_test,
           "train_digits: --export-init and --resume-test exclude each other, got both");
  TL_CHECK(!args.resume_test || args.epochs >= 2, "train_digits: --resume-test needs --epochs >= 2, got ",
           args.epochs);
  return args;
}

// (N, 1, 8, 8) -> (N, 10) logits, initialised from tl::manual_seed(seed). State-dict names as PyTorch's
// nn.Sequential gives them: 0.*, 2.*, 6.*.
std::shared_ptr<nn::Sequential> digits_cnn(uint64_t seed) {
  tl::manual_seed(seed);
  auto model = std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 1, .out_channels = 16, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 16, .out_channels = 32, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Linear>(32 * 4 * 4, 10));
  return model;
}

// A new loader per epoch, seeded from (seed, epoch): a loader's own generator carries its stream from
// epoch to epoch and is not part of a checkpoint, so a resumed run could not continue it.
data::DataLoader epoch_loader(std::shared_ptr<const data::Dataset> dataset, uint64_t seed, int epoch) {
  return data::DataLoader(std::move(dataset),
                          {.batch_size = kBatchSize, .shuffle = true, .seed = seed * 1'000'003 + epoch});
}

// The digits scaled to [0, 1] and split 80/20 by a generator seeded with `seed`.
struct Split {
  std::shared_ptr<data::Subset> train, test;
};

Split split_digits(uint64_t seed) {
  const data::TensorDataset raw = data::load_digits();
  auto digits = std::make_shared<data::TensorDataset>(raw.data().div(16.0), raw.target());
  tl::Generator generator(seed);
  std::vector<data::Subset> parts = data::random_split(digits, {0.8, 0.2}, generator);
  return {std::make_shared<data::Subset>(parts[0]), std::make_shared<data::Subset>(parts[1])};
}

// One training run: model, optimizer and the cosine schedule over all epochs, from the seed's weights.
struct Trainer {
  std::shared_ptr<nn::Sequential> model;
  optim::SGD opt;
  optim::lr_scheduler::CosineAnnealingLR sched;
  nn::CrossEntropyLoss criterion;
  bool bf16;

  Trainer(uint64_t seed, int epochs, bool bf16)
      : model(digits_cnn(seed)),
        opt(model->parameters(), {.lr = kLr, .momentum = kMomentum}),
        sched(opt, epochs),
        bf16(bf16) {}
};

// The bar of `done` out of `total` batches, 30 characters wide.
std::string bar(int64_t done, int64_t total) {
  const int64_t filled = done * 30 / total;
  return "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(30 - filled), ' ') + "]";
}

// Percent of `dataset` classified correctly, in eval mode and without autograd history, in the
// precision the model trains in.
double accuracy(nn::Module& model, std::shared_ptr<const data::Dataset> dataset, bool bf16) {
  tl::NoGradGuard no_grad;
  tl::autocast scope({.enabled = bf16});
  model.eval();
  int64_t correct = 0;
  for (const data::Example& batch : data::DataLoader(dataset, {.batch_size = 512})) {
    correct += model(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
  }
  model.train();
  return 100.0 * static_cast<double>(correct) / static_cast<double>(dataset->size());
}

struct EpochResult {
  double loss = 0;     // mean over the epoch's examples
  double seconds = 0;  // the training batches alone, evaluation excluded
};

// One epoch of SGD; with `progress`, the bar is redrawn after every batch (a terminal only).
EpochResult train_epoch(Trainer& t, const std::shared_ptr<data::Subset>& train, uint64_t seed, int epoch,
                        const std::string& progress) {
  data::DataLoader loader = epoch_loader(train, seed, epoch);
  const auto start = std::chrono::steady_clock::now();
  double loss_sum = 0;
  int64_t done = 0;
  for (const data::Example& batch : loader) {
    t.opt.zero_grad();
    Tensor loss;
    {
      tl::autocast scope({.enabled = t.bf16});
      loss = t.criterion((*t.model)(batch.data), batch.target);
    }
    loss.backward();
    t.opt.step();
    loss_sum += loss.item<double>() * static_cast<double>(batch.target.size(0));
    if (!progress.empty()) {
      std::printf("\r%s %s", progress.c_str(), bar(++done, loader.size()).c_str());
      std::fflush(stdout);
    }
  }
  t.sched.step();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {loss_sum / static_cast<double>(train->size()), elapsed.count()};
}

// The progress lines, and the final test accuracy.
double train(const Args& args, const Split& split) {
  Trainer t(args.seed, args.epochs, args.bf16);
  const bool terminal = isatty(STDOUT_FILENO) != 0;
  double acc = 0;
  tl::profiler::Profile prof;
  for (int epoch = 0; epoch < args.epochs; ++epoch) {
    char label[32];
    std::snprintf(label, sizeof label, "epoch %2d/%d", epoch + 1, args.epochs);
    std::optional<tl::profiler::ProfileGuard> running;
    if (args.profile && epoch + 1 == args.epochs) running.emplace(prof.start());
    const EpochResult r = train_epoch(t, split.train, args.seed, epoch, terminal ? label : "");
    running.reset();
    acc = accuracy(*t.model, split.test, args.bf16);
    std::printf("\r%s %s loss %.4f  test acc %.2f%%  %.0f img/s  %.3f s\n", label,
                bar(1, 1).c_str(), r.loss, acc, static_cast<double>(split.train->size()) / r.seconds, r.seconds);
    std::fflush(stdout);
  }
  if (args.profile) {
    std::printf("\nthe last epoch's %lld training batches; sorted by self CPU time\n%s",
                static_cast<long long>((split.train->size() + kBatchSize - 1) / kBatchSize),
                prof.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 20}).c_str());
  }
  return acc;
}

// Initial weights ("model.<name>"), split ("train_indices", "test_indices", into load_digits' rows),
// batch order ("train_order" (epochs, n_train), positions in train_indices) and hyper-parameters.
void export_init(const Args& args, const Split& split) {
  nn::StateDict tensors;
  for (const auto& [name, value] : digits_cnn(args.seed)->state_dict()) tensors.emplace_back("model." + name, value);
  tensors.emplace_back("train_indices", tl::from_vector(split.train->indices(), {split.train->size()}));
  tensors.emplace_back("test_indices", tl::from_vector(split.test->indices(), {split.test->size()}));
  // Each epoch's order comes from the training loader itself, run over the positions 0..n-1.
  const int64_t n = split.train->size();
  const Tensor positions = tl::arange(n);
  auto position_set = std::make_shared<data::TensorDataset>(positions, positions);
  std::vector<Tensor> orders;
  for (int epoch = 0; epoch < args.epochs; ++epoch) {
    std::vector<Tensor> batches;
    for (const data::Example& batch : epoch_loader(position_set, args.seed, epoch)) batches.push_back(batch.data);
    orders.push_back(tl::cat(batches, 0));
  }
  tensors.emplace_back("train_order", tl::stack(orders, 0));
  const nn::SafetensorsMetadata metadata{
      {"epochs", std::to_string(args.epochs)}, {"batch_size", std::to_string(kBatchSize)},
      {"lr", std::to_string(kLr)},             {"momentum", std::to_string(kMomentum)},
      {"seed", std::to_string(args.seed)}};
  nn::save_safetensors(args.export_init, tensors, metadata);
  std::printf("wrote %s: initial weights, %lld/%lld split, %d epochs of batch order\n", args.export_init.c_str(),
              static_cast<long long>(split.train->size()), static_cast<long long>(split.test->size()), args.epochs);
}

// Trains all epochs straight, and half of them, a checkpoint, a fresh model, optimizer and scheduler
// loaded from it and the other half: true when every parameter is bit-identical.
bool resume_matches(const Args& args, const Split& split) {
  const int k = args.epochs / 2;
  Trainer straight(args.seed, args.epochs, args.bf16);
  for (int epoch = 0; epoch < args.epochs; ++epoch) train_epoch(straight, split.train, args.seed, epoch, "");

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("train_digits_resume_" + std::to_string(getpid()) + ".safetensors")).string();
  {
    Trainer first(args.seed, args.epochs, args.bf16);
    for (int epoch = 0; epoch < k; ++epoch) train_epoch(first, split.train, args.seed, epoch, "");
    optim::save_checkpoint(path, *first.model, first.opt, &first.sched);
  }
  Trainer resumed(args.seed + 1, args.epochs, args.bf16);  // other initial weights: the checkpoint must replace them
  optim::load_checkpoint(path, *resumed.model, resumed.opt, &resumed.sched);
  std::filesystem::remove(path);
  for (int epoch = k; epoch < args.epochs; ++epoch) train_epoch(resumed, split.train, args.seed, epoch, "");

  bool same = true;
  const auto a = straight.model->named_parameters(), b = resumed.model->named_parameters();
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = a[i].second;
    const bool equal = std::memcmp(x.raw_data(), b[i].second.raw_data(), static_cast<size_t>(x.nbytes())) == 0;
    std::printf("%-10s %s\n", a[i].first.c_str(), equal ? "bit-identical" : "DIFFERS");
    same = same && equal;
  }
  std::printf("resume after %d of %d epochs: %s\n", k, args.epochs, same ? "bit-identical" : "differs");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const Split split = split_digits(args.seed);
    if (!args.export_init.empty()) {
      export_init(args, split);
      return 0;
    }
    if (args.resume_test) return resume_matches(args, split) ? 0 : 1;
    const double acc = train(args, split);
    std::printf("final test accuracy %.2f%% (target %.0f%%)\n", acc, kTargetAccuracy);
    return acc >= kTargetAccuracy ? 0 : 1;
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
