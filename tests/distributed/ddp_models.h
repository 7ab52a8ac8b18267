// tests/distributed/ddp_models.h — the models of the DDP tests, as tests/distributed/gen_ddp_cases.py builds them.
#pragma once

#include <memory>

#include "nn/activation.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/flatten.h"
#include "nn/linear.h"
#include "nn/pooling.h"

namespace tl::testing {

/// Conv2d(1, 4, 3, padding=1) -> ReLU -> MaxPool2d(2) -> Flatten -> Linear(64, 10), on (N, 1, 8, 8).
inline std::shared_ptr<nn::Module> ddp_cnn() {
  return std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 1, .out_channels = 4, .kernel_size = 3,
                                                     .padding = 1}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Linear>(64, 10));
}

/// The digits CNN of examples/train_digits.cpp: Conv2d(1, 16, 3, padding=1) -> ReLU -> Conv2d(16, 32, 3, padding=1)
/// -> ReLU -> MaxPool2d(2) -> Flatten -> Linear(512, 10), on (N, 1, 8, 8).
inline std::shared_ptr<nn::Module> digits_cnn() {
  auto conv = [](int64_t in, int64_t out) {
    return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = 3,
                                                          .padding = 1});
  };
  return std::make_shared<nn::Sequential>(conv(1, 16), std::make_shared<nn::ReLU>(), conv(16, 32),
                                          std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
                                          std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(32 * 4 * 4, 10));
}

/// Linear(64, 300) -> ReLU -> Linear(300, 500) -> ReLU -> Linear(500, 600): three buckets at bucket_cap_mb 0.01
/// (its last layer alone fills the first bucket's 1 MiB).
inline std::shared_ptr<nn::Module> ddp_mlp() {
  return std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(64, 300), std::make_shared<nn::ReLU>(),
                                          std::make_shared<nn::Linear>(300, 500), std::make_shared<nn::ReLU>(),
                                          std::make_shared<nn::Linear>(500, 600));
}

}  // namespace tl::testing
