// fuzz/fuzz_safetensors.cpp — libFuzzer entry point for tl::fuzz::run_safetensors (fuzz/targets.h).
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tl::fuzz::run_safetensors(std::as_bytes(std::span(data, size)));
  return 0;
}
