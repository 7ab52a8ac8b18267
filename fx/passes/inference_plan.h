// fx/passes/inference_plan.h — InferenceGraphModule, what optimize_for_inference returns: a GraphModule
// whose forward() runs, per input shape, a compiled plan that writes every intermediate activation
// into one arena laid out by liveness. The graph still prints, interprets and profiles as usual.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fx/graph_module.h"

namespace tl::fx {

/// What the model's input must look like; channels = -1 when unknown (no check).
struct InferenceInputSpec {
  int64_t channels = -1;
};

/// Memory of the plan compiled for one input shape.
struct ArenaStats {
  int64_t planned_bytes = 0;  ///< the arena: every planned activation, buffers reused by liveness
  int64_t total_bytes = 0;    ///< the same activations without reuse (the sum of their sizes)
  int64_t activations = 0;    ///< how many activations live in the arena
  int64_t arenas = 0;         ///< arenas allocated so far (one per concurrent caller)
};

class InferenceGraphModule : public GraphModule {
 public:
  /// Holds `root`'s modules and tensors, as every GraphModule does: `root` is optimize_for_inference's
  /// own intermediate (a copy of the user's module), which nobody else holds.
  InferenceGraphModule(const nn::Module& root, std::unique_ptr<Graph> graph, std::string class_name,
                       InferenceInputSpec input, const std::vector<std::pair<std::string, Tensor>>& constants = {});
  InferenceGraphModule(const InferenceGraphModule& other);
  ~InferenceGraphModule() override;

  /// One (N, C, H, W) float32 input. The first call with a new shape runs the graph while recording
  /// every activation's layout, then compiles that shape's plan; later calls run the plan in an
  /// arena taken from a small pool (concurrent callers each get their own). The result never lives
  /// in the arena. Throws tl::Error naming the expected shape for input of another rank, channel
  /// count or dtype. Plans follow the graph as it was at the last successful recompile(). It runs on
  /// the threads other processes leave idle (core/parallel.h's AdaptiveThreads) unless the caller pinned a
  /// count with set_num_threads; each thread count gets its own plan.
  using GraphModule::forward;
  TensorList forward(nn::Inputs inputs) override;
  std::shared_ptr<nn::Module> clone() const override;
  /// GraphModule::recompile, then drops every per-shape plan: the next call of each shape compiles
  /// the edited graph. A failed recompile keeps the plans and steps of the previous graph.
  void recompile() override;

  /// The arena of the plan for `input_shape`, compiling it (one run on zeros) if needed.
  ArenaStats arena_stats(const Shape& input_shape);

 private:
  struct Plan;
  void check_input(std::span<const Tensor> inputs) const;
  std::shared_ptr<Plan> plan_for(const Shape& shape) const;

  InferenceInputSpec input_;
  mutable std::mutex mutex_;
  std::map<std::vector<int64_t>, std::shared_ptr<Plan>> plans_;  ///< by input shape and thread count
};

}  // namespace tl::fx
