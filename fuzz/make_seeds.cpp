// fuzz/make_seeds.cpp — writes the valid seed inputs with torchless's own writers (nn::save,
// save_safetensors, Profile::export_chrome_trace); fuzz/make_corpus.py derives the broken ones.
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/generator.h"
#include "core/tensor.h"
#include "models/toy_fuser.h"
#include "nn/serialize.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"

namespace {

namespace fs = std::filesystem;

// One small tensor of every dtype safetensors supports, plus a scalar and a zero-size tensor.
void write_all_dtypes(const fs::path& file) {
  const tl::Tensor f32 = tl::rand({2, 3});
  const tl::nn::StateDict tensors = {
      {"f32", f32},
      {"f64", f32.to(tl::DType::Float64)},
      {"bf16", f32.to(tl::DType::BFloat16)},
      {"i64", tl::arange(0, 4).to(tl::DType::Int64)},
      {"i32", tl::arange(0, 3).to(tl::DType::Int32)},
      {"bool", f32 > 0.5},
      {"scalar", tl::ones({})},
      {"empty", tl::zeros({0, 4})},
  };
  tl::nn::save_safetensors(file.string(), tensors, {{"format", "pt"}});
}

// The toy model's state dict with its floating tensors in `dtype` and its counters in `counters`.
void write_state_dict(const fs::path& file, tl::DType dtype, tl::DType counters) {
  const auto model = tl::models::toy_fuser_model();
  tl::nn::StateDict tensors;
  for (const auto& [name, t] : model->state_dict())
    tensors.emplace_back(name, t.to(t.dtype() == tl::DType::Int64 ? counters : dtype));
  tl::nn::save_safetensors(file.string(), tensors);
}

// Three profiled steps of the toy model (two recorded) with shapes, memory and a user scope.
void write_trace(const fs::path& file) {
  const auto model = tl::models::toy_fuser_model();
  const tl::Tensor input = tl::randn({1, 1, 4, 4});
  tl::profiler::Profile prof({.record_shapes = true,
                              .profile_memory = true,
                              .schedule = tl::profiler::Schedule{.wait = 1, .warmup = 0, .active = 2, .repeat = 1}});
  {
    auto running = prof.start();
    for (int step = 0; step < 3; ++step) {
      tl::profiler::RecordFunction scope("FORWARD");
      (*model)(input);
      prof.step();
    }
  }
  prof.export_chrome_trace(file.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  tl::manual_seed(0);
  const fs::path out = argv[1];
  for (const char* target : {"safetensors", "state_dict", "trace"}) fs::create_directories(out / target);
  write_all_dtypes(out / "safetensors" / "ok-all_dtypes.safetensors");
  tl::nn::save(*tl::models::toy_fuser_model(), (out / "safetensors" / "ok-toy_model.safetensors").string(),
               {{"format", "pt"}});
  write_state_dict(out / "state_dict" / "ok-toy_model.safetensors", tl::DType::Float32, tl::DType::Int64);
  write_state_dict(out / "state_dict" / "ok-float64.safetensors", tl::DType::Float64, tl::DType::Float64);
  write_state_dict(out / "state_dict" / "ok-bfloat16_int32.safetensors", tl::DType::BFloat16, tl::DType::Int32);
  write_trace(out / "trace" / "ok-toy_model.json");
  return 0;
}
