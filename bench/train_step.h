// bench/train_step.h — the ResNet18 training step the training benchmarks share (bench_train times it,
// tracediff_demo resnet18-train profiles it): zero_grad, forward + loss, backward, SGD step.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "bench/bench_util.h"
#include "core/autocast.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/resnet.h"
#include "nn/loss.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "profiler/record_function.h"

namespace tl::bench {

/// `t` with the same values laid out channels-last, as t.contiguous(memory_format=torch.channels_last).
inline Tensor to_channels_last(const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }

/// The model, its optimizer (SGD lr 0.01, momentum 0.9, weight decay 1e-4) and one fixed batch: input
/// (N, 3, 224, 224) standard normal, labels (N) in [0, 1000), both from the default generator after the
/// model's initialisation. channels_last lays the input and the convolutions' weights out channels-last, as
/// PyTorch's model.to(memory_format=torch.channels_last) and x.to(memory_format=torch.channels_last).
struct Trainer {
  static constexpr int64_t kClasses = 1000;
  std::shared_ptr<models::ResNet> model = models::resnet18();
  optim::SGD sgd{model->parameters(), {.lr = 0.01, .momentum = 0.9, .weight_decay = 1e-4}};
  nn::CrossEntropyLoss criterion;
  Tensor input, labels;
  bool bf16;  // forward and loss under tl::autocast (bfloat16 convolutions, float32 parameters)

  Trainer(int64_t batch, bool bf16, bool channels_last = false) : input(randn({batch, 3, 224, 224})), bf16(bf16) {
    std::vector<int64_t> l(batch);
    for (int64_t& label : l) label = static_cast<int64_t>(default_generator().random64() % kClasses);
    labels = from_vector(l, {batch});
    model->train();
    if (!channels_last) return;
    input = to_channels_last(input);
    NoGradGuard no_grad;
    for (const Tensor& p : model->parameters())
      if (p.dim() == 4) p.set_data(to_channels_last(p));
  }
};

struct StepMs {
  double total = 0, forward = 0, backward = 0, optimizer = 0;
  float loss = 0;
};

/// One step; each phase is a profiler scope ("forward+loss", "backward", "optimizer.step"), so a
/// profiled step shows the phases' totals too.
inline StepMs train_step(Trainer& t) {
  StepMs ms;
  const auto t0 = std::chrono::steady_clock::now();
  t.sgd.zero_grad();
  auto phase = std::chrono::steady_clock::now();
  profiler::RecordFunction forward("forward+loss");
  Tensor loss;
  {
    autocast scope({.enabled = t.bf16});
    loss = t.criterion((*t.model)(t.input), t.labels);
  }
  forward.end();
  ms.forward = milliseconds_since(phase);
  phase = std::chrono::steady_clock::now();
  profiler::RecordFunction backward("backward");
  loss.backward();
  backward.end();
  ms.backward = milliseconds_since(phase);
  phase = std::chrono::steady_clock::now();
  profiler::RecordFunction optimizer("optimizer.step");
  t.sgd.step();
  optimizer.end();
  ms.optimizer = milliseconds_since(phase);
  ms.total = milliseconds_since(t0);
  ms.loss = loss.item<float>();
  return ms;
}

}  // namespace tl::bench
