// fx/passes/inference_plan.cpp — per-shape plans for InferenceGraphModule over the module's one
// execution plan: a recording run notes each activation's layout, core/memory_planner.h lays them out
// in one arena by liveness (a residual conv writes in place over its dying residual), and later runs
// write every planned activation into an arena taken from a mutex-protected pool.
#include "fx/passes/inference_plan.h"

#include "core/grad_mode.h"

#include <algorithm>
#include <set>
#include <vector>

#include "core/adaptive_threads.h"
#include "core/memory_planner.h"
#include "core/parallel.h"
#include "core/storage.h"
#include "fx/passes/inference_modules.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

constexpr int64_t kArenaAlignment = 64;

/// What the recording run learnt of one step's result, and where the arena holds it.
struct StepLayout {
  bool writes_out = false;  ///< a call_module step whose module can write into a planned result
  const nn::Module* module = nullptr;  ///< the module the recording run called (call_module steps)
  int64_t reuses = -1;      ///< position of the input whose memory the result may take over, or -1
  Shape sizes;
  Strides strides;
  DType dtype = DType::Float32;
  std::shared_ptr<const Quantizer> quantizer;  ///< a quantized result's (int8 activations), else null
  int64_t offset = -1;      ///< in the arena; -1: a fresh tensor
};

int64_t extent_bytes(const Shape& sizes, const Strides& strides, DType dtype) {
  int64_t last = 0;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return (last + 1) * element_size(dtype);
}

// A plan per input shape and thread count: oneDNN lays weights and results out per thread count.
std::vector<int64_t> plan_key(const Shape& shape) {
  std::vector<int64_t> key(shape.begin(), shape.end());
  key.push_back(get_num_threads());
  return key;
}

/// Runs the inference modules with the planned result tensor; other modules as they are.
class ArenaHooks : public StepHooks {
 public:
  ArenaHooks(std::vector<StepLayout>& layouts, std::shared_ptr<Storage> arena, bool record)
      : layouts_(layouts), arena_(std::move(arena)), record_(record) {}

  Tensor out_for(size_t step) override {
    const StepLayout& l = layouts_[step];
    if (!arena_ || l.offset < 0) return {};
    return Tensor::make(arena_, l.sizes, l.strides, l.offset / element_size(l.dtype), l.dtype, l.quantizer);
  }
  /// A module swapped in (set_submodule) after the recording run gets no planned result: its layout
  /// is not the recorded one.
  NodeValue call_module(size_t step, nn::Module& module, const TensorList& args, const Tensor& out) override {
    if (record_) layouts_[step].module = &module;
    auto* writer = dynamic_cast<InferenceModule*>(&module);
    if (!writer) return StepHooks::call_module(step, module, args, out);
    if (record_) {
      layouts_[step].writes_out = true;
      layouts_[step].reuses = writer->reusable_input();
    }
    return writer->run(args, layouts_[step].module == &module ? out : Tensor());
  }
  void produced(size_t step, const NodeValue& value) override {
    if (!record_ || !value.is_tensor() || !value.tensor().defined()) return;
    const Tensor& t = value.tensor();
    layouts_[step].sizes = t.shape();
    layouts_[step].strides = t.strides();
    layouts_[step].dtype = t.dtype();
    layouts_[step].quantizer = t.is_quantized() ? t.quantizer() : nullptr;
  }

 private:
  std::vector<StepLayout>& layouts_;
  std::shared_ptr<Storage> arena_;
  bool record_;
};

/// One buffer per step that can write into a planned result, with its liveness. A value from any other
/// step may alias its inputs' buffers (a view, or an op we know nothing about), so a buffer lives as
/// long as any value that may point into it, and escapes when one of them is returned.
std::vector<BufferRequest> buffer_requests(const ExecutionPlan& plan, const std::vector<StepLayout>& layouts,
                                           std::vector<int64_t>& buffer_of) {
  const std::vector<PlanStep>& steps = plan.steps();
  std::vector<BufferRequest> requests;
  buffer_of.assign(steps.size(), -1);
  std::vector<std::set<size_t>> aliases(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    const StepLayout& l = layouts[i];
    if ((l.writes_out || s.call->out_input >= 0) && !l.sizes.empty() && s.op != Opcode::Output) {
      BufferRequest r{extent_bytes(l.sizes, l.strides, l.dtype), i, i};
      if (l.reuses >= 0 && static_cast<size_t>(l.reuses) < s.inputs.size() && s.inputs[static_cast<size_t>(l.reuses)] >= 0)
        r.reuse = buffer_of[static_cast<size_t>(s.inputs[static_cast<size_t>(l.reuses)])];
      buffer_of[i] = static_cast<int64_t>(requests.size());
      aliases[i] = {requests.size()};
      requests.push_back(r);
    } else if (s.op != Opcode::Output) {
      for (int64_t in : s.inputs)
        if (in >= 0) aliases[i].insert(aliases[static_cast<size_t>(in)].begin(), aliases[static_cast<size_t>(in)].end());
    }
    for (int64_t in : s.inputs) {
      if (in < 0) continue;
      for (size_t b : aliases[static_cast<size_t>(in)]) {
        requests[b].last = std::max(requests[b].last, i);
        if (s.op == Opcode::Output) requests[b].escapes = true;
      }
    }
  }
  return requests;
}

}  // namespace

struct InferenceGraphModule::Plan {
  std::shared_ptr<const ExecutionPlan> exec;
  std::vector<StepLayout> layouts;
  ArenaStats stats;
  std::mutex mutex;
  std::vector<std::shared_ptr<Storage>> free_arenas;

  /// Runs the plan. With `arena`, planned results are views into it; with `record`, each step's
  /// result layout is noted (the recording run before planning).
  Tensor execute(const GraphModule& gm, const Tensor& input, std::shared_ptr<Storage> arena, bool record);
  /// Lays the recorded results out in one arena.
  void plan_arena();
  std::shared_ptr<Storage> acquire();
  void release(std::shared_ptr<Storage> arena);
};

Tensor InferenceGraphModule::Plan::execute(const GraphModule& gm, const Tensor& input, std::shared_ptr<Storage> arena,
                                           bool record) {
  ArenaHooks hooks(layouts, std::move(arena), record);
  TensorList out = exec->run(gm, std::span<const Tensor>(&input, 1), &hooks);
  TL_CHECK(out.size() == 1, gm.type_name(), ".forward: the graph returns ", out.size(), " tensors, expected 1");
  return out[0];
}

void InferenceGraphModule::Plan::plan_arena() {
  const std::vector<PlanStep>& steps = exec->steps();
  std::vector<int64_t> buffer_of;
  const MemoryPlan memory = plan_memory(buffer_requests(*exec, layouts, buffer_of), kArenaAlignment);
  stats = {};
  stats.planned_bytes = memory.arena_bytes;
  stats.total_bytes = memory.unshared_bytes;
  stats.activations = memory.placed;
  for (size_t i = 0; i < steps.size(); ++i)
    if (buffer_of[i] >= 0) layouts[i].offset = memory.offsets[static_cast<size_t>(buffer_of[i])];
}

std::shared_ptr<Storage> InferenceGraphModule::Plan::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!free_arenas.empty()) {
      std::shared_ptr<Storage> arena = std::move(free_arenas.back());
      free_arenas.pop_back();
      return arena;
    }
    ++stats.arenas;
  }
  return Storage::allocate(std::max<int64_t>(stats.planned_bytes, 1));
}

void InferenceGraphModule::Plan::release(std::shared_ptr<Storage> arena) {
  std::lock_guard<std::mutex> lock(mutex);
  free_arenas.push_back(std::move(arena));
}

InferenceGraphModule::InferenceGraphModule(const nn::Module& root, std::unique_ptr<Graph> graph, std::string class_name,
                                           InferenceInputSpec input,
                                           const std::vector<std::pair<std::string, Tensor>>& constants)
    : GraphModule(root, std::move(graph), std::move(class_name), constants), input_(input) {}

InferenceGraphModule::InferenceGraphModule(const InferenceGraphModule& other) : GraphModule(other), input_(other.input_) {}

void InferenceGraphModule::recompile() {
  GraphModule::recompile();
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.clear();
}

InferenceGraphModule::~InferenceGraphModule() = default;

std::shared_ptr<nn::Module> InferenceGraphModule::clone() const { return clone_compiled<InferenceGraphModule>(); }

void InferenceGraphModule::check_input(std::span<const Tensor> inputs) const {
  TL_CHECK(inputs.size() == 1, type_name(), ".forward: expected 1 input, got ", inputs.size());
  const Tensor& x = inputs[0];
  const std::string expected = input_.channels >= 0 ? "(N, " + std::to_string(input_.channels) + ", H, W)" : "(N, C, H, W)";
  TL_CHECK(x.defined() && x.dim() == 4 && x.dtype() == DType::Float32 && (input_.channels < 0 || x.size(1) == input_.channels),
           type_name(), ".forward: expected a float32 input of shape ", expected, ", got ",
           x.defined() ? detail::str_cat(x.shape(), " ", x.dtype()) : std::string("None"));
}

std::shared_ptr<InferenceGraphModule::Plan> InferenceGraphModule::plan_for(const Shape& shape) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = plans_.find(plan_key(shape));
  return it == plans_.end() ? nullptr : it->second;
}

TensorList InferenceGraphModule::forward(nn::Inputs inputs) {
  // Symbolic tracing records the graph's own calls; shapes are unknown then.
  if (inputs.size() == 1 && inputs[0].is_proxy()) return GraphModule::forward(inputs);
  NoGradGuard no_grad;  // an inference module records no history (it runs in eval mode only)
  const AdaptiveThreads threads;  // the cores other processes leave idle, unless the user pinned a count
  check_input(inputs.tensors());
  const Tensor& x = inputs[0];
  if (std::shared_ptr<Plan> plan = plan_for(x.shape())) {
    std::shared_ptr<Storage> arena = plan->acquire();
    struct Release {
      Plan& plan;
      std::shared_ptr<Storage>& arena;
      ~Release() { plan.release(std::move(arena)); }
    } release{*plan, arena};
    return {plan->execute(*this, x, arena, /*record=*/false)};
  }
  auto plan = std::make_shared<Plan>();
  plan->exec = this->plan();
  plan->layouts.resize(plan->exec->steps().size());
  TensorList result{plan->execute(*this, x, nullptr, /*record=*/true)};
  plan->plan_arena();
  // The recording run's activations were separate tensors of many sizes; from now on one arena
  // holds them, so their cached blocks would only raise the process's peak memory beside it.
  empty_cache();
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.emplace(plan_key(x.shape()), std::move(plan));
  return result;
}

ArenaStats InferenceGraphModule::arena_stats(const Shape& input_shape) {
  const AdaptiveThreads threads;  // the plan forward() uses now
  if (!plan_for(input_shape)) forward(nn::Inputs(*this, TensorList{zeros(input_shape)}));
  std::shared_ptr<Plan> plan = plan_for(input_shape);
  std::lock_guard<std::mutex> lock(plan->mutex);
  return plan->stats;
}

}  // namespace tl::fx
