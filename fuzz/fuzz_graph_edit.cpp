// fuzz/fuzz_graph_edit.cpp — libFuzzer entry point for tl::fuzz::run_graph_edit (fuzz/targets.h).
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tl::fuzz::run_graph_edit(std::as_bytes(std::span(data, size)));
  return 0;
}
