// fx/passes/inference_plan.cpp — compiled per-shape plans for InferenceGraphModule: steps resolved from
// the graph once, a recording run for the layouts, a greedy best-fit arena layout over liveness
// (residual convs write in place over their dying residual), and a mutex-protected pool of arenas.
#include "fx/passes/inference_plan.h"

#include <algorithm>
#include <climits>
#include <set>
#include <vector>

#include "core/storage.h"
#include "fx/passes/inference_modules.h"
#include "fx/schema.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

constexpr int64_t kArenaAlignment = 64;

/// One graph node, resolved: where its inputs come from and where its output goes.
struct PlanStep {
  const Node* node = nullptr;
  Opcode op = Opcode::Output;
  std::shared_ptr<nn::Module> module;   // call_module
  InferenceModule* writer = nullptr;    // call_module that can write into a planned `out`
  std::optional<OpKind> kind;           // call_function / call_method
  CallStyle style = CallStyle::Function;
  Attrs attrs;
  bool has_out = false;                 // the schema has an `out` result (its last tensor argument)
  std::vector<int64_t> inputs;          // value slots (-1 for None); the step's own slot is its index
  int64_t index = 0;                    // placeholder position
  Tensor constant;                      // get_attr
  std::vector<int64_t> frees;           // slots whose last use this step is
  // Planned output: an arena view, or (offset -1) a fresh tensor.
  int64_t offset = -1;
  Shape sizes;
  Strides strides;
  DType dtype = DType::Float32;

  bool can_write_out() const { return writer != nullptr || has_out; }
};

std::string error_context(const Node& n, const Error& e) {
  const std::string what = e.what();
  if (what.rfind("while executing", 0) == 0) return what;
  return "while executing " + n.format() + ": " + what;
}

/// The graph as steps, or an empty list when it holds something the plan does not run (multi-output
/// ops, getitem): forward() then falls back to GraphModule's executor.
std::vector<PlanStep> resolve_steps(const GraphModule& gm) {
  std::vector<PlanStep> steps;
  std::map<const Node*, int64_t> slot_of;
  int64_t placeholders = 0;
  for (Node* n : gm.graph().nodes()) {
    PlanStep s;
    s.node = n;
    s.op = n->op();
    s.kind = n->op_kind();
    s.style = call_style(*n);
    if (n->op() == Opcode::Placeholder) s.index = placeholders++;
    if (n->op() == Opcode::GetAttr) s.constant = gm.fetch_attr(n->target());
    if (n->op() == Opcode::CallModule) {
      s.module = gm.get_submodule(n->target());
      s.writer = dynamic_cast<InferenceModule*>(s.module.get());
      for (const Argument& a : n->args()) {
        if (!a.is_node()) return {};
        s.inputs.push_back(slot_of.at(a.node()));
      }
    } else if (n->op() == Opcode::CallFunction || n->op() == Opcode::CallMethod) {
      if (!s.kind) return {};  // operator.getitem
      const Schema& schema = schema_of(*s.kind);
      if (!schema.returns_one_tensor()) return {};  // several results, or not a tensor
      OpArguments a = from_fx_args(*s.kind, n->args(), n->kwargs(), [](Node*) { return Tensor(); });
      s.attrs = std::move(a.attrs);
      for (Node* in : a.input_nodes) s.inputs.push_back(in ? slot_of.at(in) : -1);
      s.has_out = schema.out_index() >= 0;
    } else if (n->op() == Opcode::Output) {
      if (n->args().size() != 1 || !n->args()[0].is_node()) return {};  // a tuple of results
      s.inputs.push_back(slot_of.at(n->args()[0].node()));
    }
    slot_of[n] = static_cast<int64_t>(steps.size());
    steps.push_back(std::move(s));
  }
  // Free each value right after its last use.
  std::map<int64_t, size_t> last_use;
  for (size_t i = 0; i < steps.size(); ++i)
    for (int64_t in : steps[i].inputs)
      if (in >= 0) last_use[in] = i;
  for (const auto& [slot, step] : last_use) steps[step].frees.push_back(slot);
  return steps;
}

int64_t extent_bytes(const Shape& sizes, const Strides& strides, DType dtype) {
  int64_t last = 0;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return (last + 1) * element_size(dtype);
}

std::vector<int64_t> shape_key(const Shape& shape) { return {shape.begin(), shape.end()}; }

int64_t align_up(int64_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

/// An output the plan may put in the arena, alive over steps [first, last].
struct Buffer {
  int64_t bytes = 0;
  size_t first = 0, last = 0;
  bool escapes = false;  ///< reaches the graph's output: must not live in the arena
  int64_t offset = -1;
};

struct BufferPlan {
  std::vector<Buffer> buffers;
  std::vector<int64_t> buffer_of;  ///< per step: its output's buffer, or -1
  std::vector<int64_t> root;       ///< per buffer: the buffer whose memory it uses (itself unless in place)
};

/// One buffer per step that can write into a planned `out`, with its liveness. A value from any other
/// step may alias its inputs' buffers (a view, or an op we know nothing about), so a buffer lives as
/// long as any value that may point into it.
BufferPlan collect_buffers(const std::vector<PlanStep>& steps) {
  const size_t n = steps.size();
  BufferPlan plan;
  plan.buffer_of.assign(n, -1);
  std::vector<std::set<size_t>> aliases(n);
  for (size_t i = 0; i < n; ++i) {
    const PlanStep& s = steps[i];
    if (s.can_write_out() && s.op != Opcode::Output) {
      plan.buffer_of[i] = static_cast<int64_t>(plan.buffers.size());
      plan.buffers.push_back({align_up(extent_bytes(s.sizes, s.strides, s.dtype)), i, i});
      aliases[i] = {static_cast<size_t>(plan.buffer_of[i])};
    } else if (s.op != Opcode::Output) {
      for (int64_t in : s.inputs)
        if (in >= 0) aliases[i].insert(aliases[static_cast<size_t>(in)].begin(), aliases[static_cast<size_t>(in)].end());
    }
    for (int64_t in : s.inputs) {
      if (in < 0) continue;
      for (size_t b : aliases[static_cast<size_t>(in)]) {
        plan.buffers[b].last = std::max(plan.buffers[b].last, i);
        if (s.op == Opcode::Output) plan.buffers[b].escapes = true;
      }
    }
  }
  plan.root.resize(plan.buffers.size());
  for (size_t b = 0; b < plan.buffers.size(); ++b) plan.root[b] = static_cast<int64_t>(b);
  return plan;
}

/// A conv with a residual writes over the residual's buffer when nothing reads the residual afterwards
/// (oneDNN's sum post-op accumulates into dst), saving both the memory and the copy.
void merge_in_place(const std::vector<PlanStep>& steps, BufferPlan& plan) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    auto* conv = dynamic_cast<MkldnnConv2d*>(s.writer);
    if (!conv || !conv->sum() || s.inputs.size() != 2 || plan.buffer_of[i] < 0) continue;
    const int64_t other = plan.buffer_of[static_cast<size_t>(s.inputs[1])];
    if (other < 0) continue;
    const int64_t home = plan.root[static_cast<size_t>(other)];
    Buffer& src = plan.buffers[static_cast<size_t>(home)];
    Buffer& dst = plan.buffers[static_cast<size_t>(plan.buffer_of[i])];
    if (src.last != i || src.bytes != dst.bytes || src.escapes || dst.escapes) continue;
    src.last = dst.last;
    dst.bytes = 0;  // lives in src
    plan.root[static_cast<size_t>(plan.buffer_of[i])] = home;
  }
}

/// Greedy by size: each buffer, largest first, takes the smallest gap that fits among the buffers
/// already placed whose lifetimes overlap its own. Returns the arena size.
int64_t place_buffers(BufferPlan& plan) {
  std::vector<Buffer>& buffers = plan.buffers;
  std::vector<size_t> order;
  for (size_t b = 0; b < buffers.size(); ++b)
    if (plan.root[b] == static_cast<int64_t>(b) && !buffers[b].escapes && buffers[b].bytes > 0) order.push_back(b);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  std::vector<size_t> placed;
  int64_t arena_bytes = 0;
  for (size_t b : order) {
    Buffer& buf = buffers[b];
    std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of live neighbours
    for (size_t p : placed)
      if (buffers[p].first <= buf.last && buf.first <= buffers[p].last)
        busy.emplace_back(buffers[p].offset, buffers[p].offset + buffers[p].bytes);
    std::sort(busy.begin(), busy.end());
    int64_t best = -1, best_gap = INT64_MAX, cursor = 0;
    for (const auto& [begin, end] : busy) {
      if (begin - cursor >= buf.bytes && begin - cursor < best_gap) {
        best = cursor;
        best_gap = begin - cursor;
      }
      cursor = std::max(cursor, end);
    }
    buf.offset = best >= 0 ? best : cursor;
    arena_bytes = std::max(arena_bytes, buf.offset + buf.bytes);
    placed.push_back(b);
  }
  return arena_bytes;
}

}  // namespace

struct InferenceGraphModule::Steps {
  std::vector<PlanStep> steps;
};

struct InferenceGraphModule::Plan {
  std::vector<PlanStep> steps;
  ArenaStats stats;
  std::mutex mutex;
  std::vector<std::shared_ptr<Storage>> free_arenas;

  /// Runs the steps. With `arena`, planned outputs are views into it; with `record`, each step's
  /// output layout is stored in the step (the recording run before planning).
  Tensor execute(const Tensor& input, const std::shared_ptr<Storage>& arena, bool record);
  /// Lays the recorded outputs out in one arena (greedy best-fit by size over liveness).
  void plan_arena();
  std::shared_ptr<Storage> acquire();
  void release(std::shared_ptr<Storage> arena);
};

Tensor InferenceGraphModule::Plan::execute(const Tensor& input, const std::shared_ptr<Storage>& arena, bool record) {
  std::vector<Tensor> slots(steps.size());
  TensorList args;
  for (size_t i = 0; i < steps.size(); ++i) {
    PlanStep& s = steps[i];
    Tensor v;
    try {
      args.clear();
      for (int64_t in : s.inputs) args.push_back(in < 0 ? Tensor() : slots[static_cast<size_t>(in)]);
      Tensor out;
      if (arena && s.offset >= 0) out = Tensor::make(arena, s.sizes, s.strides, s.offset / element_size(s.dtype), s.dtype);
      switch (s.op) {
        case Opcode::Placeholder: v = input; break;
        case Opcode::GetAttr: v = s.constant; break;
        case Opcode::CallModule: {
          if (s.writer) v = s.writer->run(args, out);
          else {
            TensorList result = (*s.module)(args);
            TL_CHECK(result.size() == 1, "module returned ", result.size(), " values, expected 1");
            v = result[0];
          }
          break;
        }
        case Opcode::CallFunction:
        case Opcode::CallMethod:
          if (s.has_out) args.back() = out;
          v = dispatch::call1(*s.kind, args, s.attrs, s.style);
          break;
        case Opcode::Output: return args.at(0);
      }
    } catch (const Error& e) {
      throw Error(error_context(*s.node, e));
    }
    if (record && v.defined()) {
      s.sizes = v.shape();
      s.strides = v.strides();
      s.dtype = v.dtype();
    }
    slots[i] = std::move(v);
    for (int64_t dead : s.frees) slots[static_cast<size_t>(dead)] = Tensor();
  }
  TL_INTERNAL_ASSERT(false, "graph has no output node");
  return {};
}

void InferenceGraphModule::Plan::plan_arena() {
  BufferPlan plan = collect_buffers(steps);
  merge_in_place(steps, plan);
  stats = {};
  stats.planned_bytes = place_buffers(plan);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (plan.buffer_of[i] < 0) continue;
    const Buffer& own = plan.buffers[static_cast<size_t>(plan.buffer_of[i])];
    const Buffer& home = plan.buffers[static_cast<size_t>(plan.root[static_cast<size_t>(plan.buffer_of[i])])];
    if (home.escapes || home.offset < 0) continue;
    steps[i].offset = home.offset;
    stats.total_bytes += own.bytes > 0 ? own.bytes : home.bytes;
    ++stats.activations;
  }
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
                                           InferenceInputSpec input)
    : GraphModule(root, std::move(graph), std::move(class_name), {}, Targets::Share),
      input_(input),
      steps_(std::make_shared<const Steps>(Steps{resolve_steps(*this)})) {}

InferenceGraphModule::InferenceGraphModule(const InferenceGraphModule& other)
    : GraphModule(other), input_(other.input_), steps_(other.steps_) {}

void InferenceGraphModule::recompile() {
  auto steps = std::make_shared<const Steps>(Steps{resolve_steps(*this)});
  GraphModule::recompile();
  std::lock_guard<std::mutex> lock(mutex_);
  steps_ = std::move(steps);
  plans_.clear();
}

InferenceGraphModule::~InferenceGraphModule() = default;

std::shared_ptr<nn::Module> InferenceGraphModule::clone() const {
  std::shared_ptr<nn::Module> copy = clone_as<InferenceGraphModule>();
  static_cast<InferenceGraphModule&>(*copy).recompile();
  return copy;
}

void InferenceGraphModule::check_input(const TensorList& inputs) const {
  TL_CHECK(inputs.size() == 1, type_name(), ".forward: expected 1 input, got ", inputs.size());
  const Tensor& x = inputs[0];
  const std::string expected = input_.channels >= 0 ? "(N, " + std::to_string(input_.channels) + ", H, W)" : "(N, C, H, W)";
  TL_CHECK(x.defined() && x.dim() == 4 && x.dtype() == DType::Float32 && (input_.channels < 0 || x.size(1) == input_.channels),
           type_name(), ".forward: expected a float32 input of shape ", expected, ", got ",
           x.defined() ? detail::str_cat(x.shape(), " ", x.dtype()) : std::string("None"));
}

std::shared_ptr<InferenceGraphModule::Plan> InferenceGraphModule::plan_for(const Shape& shape) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = plans_.find(shape_key(shape));
  return it == plans_.end() ? nullptr : it->second;
}

TensorList InferenceGraphModule::forward(const TensorList& inputs) {
  // Symbolic tracing records the graph's own calls; shapes are unknown then.
  if (inputs.size() == 1 && inputs[0].is_proxy()) return GraphModule::forward(inputs);
  check_input(inputs);
  const Tensor& x = inputs[0];
  if (std::shared_ptr<Plan> plan = plan_for(x.shape())) {
    if (plan->steps.empty()) return GraphModule::forward(inputs);
    std::shared_ptr<Storage> arena = plan->acquire();
    struct Release {
      Plan& plan;
      std::shared_ptr<Storage>& arena;
      ~Release() { plan.release(std::move(arena)); }
    } release{*plan, arena};
    return {plan->execute(x, arena, /*record=*/false)};
  }
  auto plan = std::make_shared<Plan>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan->steps = steps_->steps;
  }
  TensorList result = plan->steps.empty() ? GraphModule::forward(inputs) : TensorList{plan->execute(x, nullptr, /*record=*/true)};
  if (!plan->steps.empty()) {
    plan->plan_arena();
    // The recording run's activations were separate tensors of many sizes; from now on one arena
    // holds them, so their cached blocks would only raise the process's peak memory beside it.
    empty_cache();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.emplace(shape_key(x.shape()), std::move(plan));
  return result;
}

ArenaStats InferenceGraphModule::arena_stats(const Shape& input_shape) {
  if (!plan_for(input_shape)) forward(TensorList{zeros(input_shape)});
  std::shared_ptr<Plan> plan = plan_for(input_shape);
  std::lock_guard<std::mutex> lock(plan->mutex);
  return plan->stats;
}

}  // namespace tl::fx
