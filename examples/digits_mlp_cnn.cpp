// examples/digits_mlp_cnn.cpp — a digits training script as a PyTorch user writes one (named Sequential,
// DataLoader with 2 workers, AdamW + OneCycleLR, clip_grad_norm_, dropout, a checkpoint per epoch, resume);
// examples/digits_mlp_cnn_pt.py is its PyTorch twin line for line and prints the same step losses.
//
//   digits_mlp_cnn [--epochs N] [--seed S] [--num-workers W] [--checkpoint-dir DIR] [--resume PATH]
//                  [--check REFERENCE]
//
// Each epoch's line gives the time the loop waited on the DataLoader: for the first batch (the workers
// start then) and for the others (total and longest); --num-workers 0 loads the batches on the loop's
// thread instead of 2 workers'.
// --check REFERENCE (what `meson test` runs) trains --epochs epochs with checkpoints in a scratch
// directory, fails unless every step loss is the twin's in REFERENCE (the file `digits_mlp_cnn_pt.py
// --losses` wrote) within kLossTolerance, then resumes from the epoch-1 checkpoint and fails unless the
// later epochs' losses are the same bits.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "torchless/torchless.h"

namespace data = tl::data;
namespace nn = tl::nn;
namespace optim = tl::optim;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t kBatchSize = 32;
constexpr double kMaxLr = 0.01;
constexpr double kMaxGradNorm = 1.0;
// |loss - twin's loss| allowed per step. The convolutions and matrix products add their terms in another
// order than PyTorch's kernels (another blocking of the sums), so the same weights, batch and dropout mask
// give a loss that differs in the last bit or two (step 1: 2.31294227 against 2.3129425, one float32 ulp);
// those differences reach the gradients, AdamW carries them into the weights, and they grow with the
// steps: over 3 epochs (135 steps) the largest is 6.9e-7 (3.0e-6 relative), and 28 steps are
// bit-identical. 1e-5 leaves a factor 15 above that; another dropout mask in step 1 alone moves the loss
// by 2e-3 to 6e-3.
constexpr double kLossTolerance = 1e-5;

struct Args {
  int64_t epochs = 8;
  uint64_t seed = 0;
  int64_t num_workers = 2;
  std::string checkpoint_dir;  // empty: no checkpoints
  std::string resume;          // a checkpoint to continue from
  std::string check;           // the twin's losses to compare against
};

int64_t parse_number(const std::string& flag, const char* text) {
  int64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  TL_CHECK(ec == std::errc() && ptr == end && value >= 0, "digits_mlp_cnn: ", flag,
           " expects a whole number, got '", text, "'");
  return value;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    TL_CHECK(i + 1 < argc && (flag == "--epochs" || flag == "--seed" || flag == "--num-workers" ||
                              flag == "--checkpoint-dir" || flag == "--resume" || flag == "--check"),
             "digits_mlp_cnn: unknown flag or missing value '", flag, "' (flags: --epochs N, --seed S, ",
             "--num-workers W, --checkpoint-dir DIR, --resume PATH, --check REFERENCE)");
    const char* value = argv[++i];
    if (flag == "--epochs") args.epochs = parse_number(flag, value);
    else if (flag == "--seed") args.seed = static_cast<uint64_t>(parse_number(flag, value));
    else if (flag == "--num-workers") args.num_workers = parse_number(flag, value);
    else if (flag == "--checkpoint-dir") args.checkpoint_dir = value;
    else if (flag == "--resume") args.resume = value;
    else args.check = value;
  }
  TL_CHECK(args.epochs >= 1, "digits_mlp_cnn: --epochs expects at least 1, got ", args.epochs);
  TL_CHECK(args.check.empty() || (args.epochs >= 2 && args.resume.empty() && args.checkpoint_dir.empty()),
           "digits_mlp_cnn: --check resumes from its own epoch-1 checkpoint: it needs --epochs >= 2 and neither ",
           "--resume nor --checkpoint-dir");
  return args;
}

// (N, 1, 8, 8) -> (N, 10): a CNN trunk, then an MLP head with dropout.
std::shared_ptr<nn::Sequential> digits_mlp_cnn() {
  const auto conv = [](int64_t in, int64_t out) {
    return std::make_shared<nn::Conv2d>(
        nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = 3, .padding = 1});
  };
  return std::make_shared<nn::Sequential>(std::vector<nn::Module::NamedModule>{
      {"conv1", conv(1, 16)},
      {"relu1", std::make_shared<nn::ReLU>()},
      {"pool", std::make_shared<nn::MaxPool2d>(2)},
      {"conv2", conv(16, 32)},
      {"relu2", std::make_shared<nn::ReLU>()},
      {"flatten", std::make_shared<nn::Flatten>()},
      {"fc1", std::make_shared<nn::Linear>(32 * 4 * 4, 64)},
      {"relu3", std::make_shared<nn::ReLU>()},
      {"dropout", std::make_shared<nn::Dropout>(0.25)},
      {"fc2", std::make_shared<nn::Linear>(64, 10)},
  });
}

double accuracy(nn::Module& model, data::DataLoader& loader) {
  model.eval();
  int64_t correct = 0;
  {
    tl::NoGradGuard no_grad;
    for (const data::Example& batch : loader)
      correct += model(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
  }
  model.train();
  return 100.0 * static_cast<double>(correct) / static_cast<double>(loader.dataset().size());
}

double milliseconds(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The script: trains args.epochs epochs (from args.resume's epoch on) and returns the step lines it printed.
std::vector<std::string> train(const Args& args) {
  const data::TensorDataset digits = data::load_digits();
  auto dataset = std::make_shared<data::TensorDataset>(digits.data().div(16.0), digits.target());  // (1797, 1, 8, 8)
  tl::Generator split_generator(args.seed);
  const std::vector<data::Subset> split = data::random_split(dataset, {0.8, 0.2}, split_generator);
  auto train_set = std::make_shared<data::Subset>(split[0]), test_set = std::make_shared<data::Subset>(split[1]);

  tl::manual_seed(args.seed);
  const std::shared_ptr<nn::Sequential> model = digits_mlp_cnn();
  data::DataLoader train_loader(train_set,
                                {.batch_size = kBatchSize, .shuffle = true, .num_workers = args.num_workers});
  data::DataLoader test_loader(test_set, {.batch_size = 512});
  optim::AdamW optimizer(model->parameters(), {.lr = kMaxLr});
  optim::lr_scheduler::OneCycleLR scheduler(
      optimizer, {.max_lr = kMaxLr, .epochs = args.epochs, .steps_per_epoch = train_loader.size()});
  nn::CrossEntropyLoss criterion;

  int64_t start_epoch = 0;
  if (!args.resume.empty()) {
    tl::serialize::InputArchive checkpoint;
    checkpoint.load_from(args.resume);
    nn::StateDict weights;
    checkpoint.read("model", weights);
    model->load_state_dict(weights);
    optim::OptimizerStateDict optimizer_state;
    optim::read(checkpoint, "optimizer", optimizer_state);
    optimizer.load_state_dict(optimizer_state);
    optim::lr_scheduler::SchedulerStateDict scheduler_state;
    optim::read(checkpoint, "scheduler", scheduler_state);
    scheduler.load_state_dict(scheduler_state);
    std::vector<uint8_t> rng_state;
    checkpoint.read("rng_state", rng_state);
    tl::set_rng_state(rng_state);
    checkpoint.read("epoch", start_epoch);
  }

  std::vector<std::string> loss_lines;
  for (int64_t epoch = start_epoch; epoch < args.epochs; ++epoch) {
    Clock::duration wait_first{}, wait_total{}, wait_max{};  // the first batch waits for the workers to start
    const Clock::time_point started = Clock::now();
    data::DataLoader::Iterator batches = train_loader.begin();
    for (int64_t step = 1; step <= train_loader.size(); ++step, ++batches) {
      const Clock::time_point waited = Clock::now();
      const data::Example batch = *batches;
      const Clock::duration wait = Clock::now() - waited;
      if (step == 1) wait_first = wait;
      else wait_total += wait, wait_max = std::max(wait_max, wait);
      optimizer.zero_grad();
      const tl::Tensor loss = criterion((*model)(batch.data), batch.target);
      loss.backward();
      nn::utils::clip_grad_norm_(model->parameters(), kMaxGradNorm);
      optimizer.step();
      scheduler.step();
      char line[80];
      std::snprintf(line, sizeof line, "epoch %lld step %lld loss %.9g", static_cast<long long>(epoch + 1),
                    static_cast<long long>(step), loss.item<double>());
      loss_lines.emplace_back(line);
      std::puts(line);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    std::printf("epoch %lld/%lld test acc %.2f%%  %.3f s  data wait: first batch %.3f ms, later %.3f ms "
                "(max %.3f ms)\n",
                static_cast<long long>(epoch + 1), static_cast<long long>(args.epochs), accuracy(*model, test_loader),
                seconds, milliseconds(wait_first), milliseconds(wait_total), milliseconds(wait_max));
    std::fflush(stdout);
    if (!args.checkpoint_dir.empty()) {
      tl::serialize::OutputArchive checkpoint;
      checkpoint.write("model", model->state_dict());
      optim::write(checkpoint, "optimizer", optimizer.state_dict());
      optim::write(checkpoint, "scheduler", scheduler.state_dict());
      checkpoint.write("rng_state", tl::get_rng_state());
      checkpoint.write("epoch", epoch + 1);
      checkpoint.save_to(args.checkpoint_dir + "/epoch" + std::to_string(epoch + 1) + ".ckpt");
    }
  }
  return loss_lines;
}

// The loss at the end of a step line ("epoch E step S loss L"); "" and NaN for the rest.
std::pair<std::string, double> split_line(const std::string& line) {
  const size_t at = line.rfind(" loss ");
  if (at == std::string::npos) return {"", NAN};
  return {line.substr(0, at), std::strtod(line.c_str() + at + 6, nullptr)};
}

// Trains with checkpoints, compares every step's loss with the twin's, resumes from epoch 1 and compares
// the later epochs' lines with the first run's. True when both match.
bool check(Args args) {
  std::vector<std::string> reference;
  std::ifstream file(args.check);
  TL_CHECK(file.good(), "digits_mlp_cnn: cannot open the reference '", args.check, "'");
  for (std::string line; std::getline(file, line);) reference.push_back(line);
  struct ScratchDir {  // removed however check() ends
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("digits_mlp_cnn_" + std::to_string(getpid()));
    ScratchDir() { std::filesystem::create_directories(path); }
    ~ScratchDir() { std::filesystem::remove_all(path); }
  } dir;
  args.checkpoint_dir = dir.path.string();
  const std::vector<std::string> straight = train(args);

  bool same = straight.size() == reference.size();
  double worst = 0;
  for (size_t i = 0; same && i < straight.size(); ++i) {
    const auto [ours, loss] = split_line(straight[i]);
    const auto [theirs, twin_loss] = split_line(reference[i]);
    worst = std::max(worst, std::abs(loss - twin_loss));
    same = ours == theirs && !ours.empty() && std::abs(loss - twin_loss) <= kLossTolerance;
    if (!same) std::printf("differs from the twin: '%s' against '%s'\n", straight[i].c_str(), reference[i].c_str());
  }
  std::printf("%zu step losses against the twin's (%zu): largest difference %.3g (tolerance %.0e): %s\n",
              straight.size(), reference.size(), worst, kLossTolerance, same ? "match" : "DIFFER");

  args.resume = (dir.path / "epoch1.ckpt").string();
  const std::vector<std::string> resumed = train(args);
  const auto later = static_cast<std::ptrdiff_t>(resumed.size());  // the straight run's last lines
  const bool exact = !resumed.empty() && resumed.size() < straight.size() &&
                     std::equal(resumed.begin(), resumed.end(), straight.end() - later);
  std::printf("resumed from epoch 1: %zu step losses %s\n", resumed.size(),
              exact ? "bit-identical to the straight run's" : "DIFFER from the straight run's");
  return same && exact;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    if (!args.check.empty()) return check(args) ? 0 : 1;
    train(args);
    return 0;
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
