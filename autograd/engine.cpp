// autograd/engine.cpp — the backward pass: dependencies counted from the roots, nodes run when all
// their gradients have arrived, latest-created first (PyTorch's order), gradients summed per input.
#include "autograd/engine.h"

#include <cstdint>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/node.h"
#include "core/autocast.h"
#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"

namespace tl::autograd {
namespace {

// What autograd::grad collects: the gradients arriving at its inputs' edges, instead of running on.
struct Capture {
  struct Slot {
    uint32_t input_nr;  // which gradient of the node's buffer
    size_t index;       // where in `grads` (an input given twice has two slots)
  };
  std::unordered_map<const Node*, std::vector<Slot>> at;
  TensorList grads;
};

struct NodeState {
  int dependencies = 0;
  TensorList buffer;    // one gradient per forward output
  bool needed = true;   // with a Capture: some captured edge lies below this node
};

// The root gradient for `t`: the given one (checked against t) or, for a one-element tensor, ones_like(t)
// (what a profile shows of PyTorch's backward() too).
Tensor root_gradient(const Tensor& t, const Tensor& given, size_t index) {
  TL_CHECK(t.requires_grad(), "element ", index, " of tensors does not require grad and does not have a grad_fn");
  if (!given.defined()) {
    TL_CHECK(t.numel() == 1, "grad can be implicitly created only for scalar outputs: element ", index,
             " has size ", t.shape(), " (", t.numel(), " elements); pass a gradient of that shape");
    return ones_like(t);
  }
  TL_CHECK(given.shape() == t.shape(), "Mismatch in shape: grad_output[", index, "] has a shape of ", given.shape(),
           " and output[", index, "] has a shape of ", t.shape());
  TL_CHECK(is_floating_point(given.dtype()), "grad_output[", index, "] has dtype ", given.dtype(),
           ": gradients must be floating point like output[", index, "] (", t.dtype(), ")");
  return given.dtype() == t.dtype() ? given : given.to(t.dtype());
}

// Adds `g` into `slot` (out of place: a gradient may be another node's buffer or the user's tensor).
void accumulate(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  slot = slot.defined() ? slot.add(g) : g;
}

// The gradient a node returned for edge `i`, checked against what the edge's node expects.
void check_gradient(const Node& node, size_t i, const Tensor& g, const Edge& edge) {
  const TensorInfo& want = edge.fn->output_meta.at(edge.input_nr);
  TL_INTERNAL_ASSERT(g.shape() == want.shape, "Function ", node.name(), " returned an invalid gradient at index ", i,
                     " - got ", g.shape(), " but expected shape compatible with ", want.shape);
}

// Adds the gradients arriving at `n` into .grad of the non-leaves that asked retain_grad().
void retain_grads(const Node& n, const TensorList& buffer) {
  for (size_t k = 0; k < n.retained.size() && k < buffer.size(); ++k)
    for (const auto& w : n.retained[k])
      if (Tensor t = TensorImplAccess::lock(w); t.defined() && buffer[k].defined()) {
        Tensor& slot = TensorImplAccess::ensure_meta(t).grad;
        slot = slot.defined() ? slot.add(buffer[k]) : buffer[k].clone();
      }
}

// What ties a node's backward scopes to the forward op that recorded it; a leaf's accumulator is
// recorded by no op and has no sequence number (PyTorch's is -1 there too).
ScopeLink forward_link(const Node& n) {
  if (n.sequence_nr == UINT64_MAX) return {};
  return {static_cast<int64_t>(n.sequence_nr), n.forward_thread};
}

// PyTorch's init_to_execute for autograd::grad: a node runs only when a captured edge lies below it,
// so neither the leaves' accumulators nor the history below a non-leaf input run. Post-order over the
// graph (iterative: a graph may be a million nodes deep), children before their parents.
void mark_needed(const std::vector<Edge>& roots, std::unordered_map<Node*, NodeState>& state, const Capture& capture) {
  struct Frame {
    Node* node;
    size_t next = 0;
  };
  std::unordered_set<Node*> visited;
  std::vector<Frame> stack;
  for (const Edge& e : roots)
    if (visited.insert(e.fn.get()).second) stack.push_back({e.fn.get()});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.node->next_edges.size()) {
      Node* child = f.node->next_edges[f.next++].fn.get();
      if (child != nullptr && visited.insert(child).second) stack.push_back({child});
      continue;
    }
    Node* n = f.node;
    stack.pop_back();
    bool needed = false;
    for (const Edge& e : n->next_edges)
      if (e.valid()) needed = needed || state.at(e.fn.get()).needed || capture.at.count(e.fn.get()) > 0;
    state.at(n).needed = needed;
  }
}

void run(const std::vector<Edge>& roots, TensorList root_grads, bool retain_graph, Capture* capture) {
  // Dependencies: how many gradients each reachable node waits for.
  std::unordered_map<Node*, NodeState> state;
  std::vector<Node*> stack;
  for (const Edge& e : roots)
    if (state.emplace(e.fn.get(), NodeState{}).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    TL_CHECK(!n->released(),
             "Trying to backward through the graph a second time (or directly access saved tensors after they have "
             "already been freed): ", n->name(), "'s saved tensors were freed by an earlier backward(). Specify "
             "retain_graph=true if you need to backward through the graph a second time.");
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      auto [it, fresh] = state.emplace(e.fn.get(), NodeState{});
      ++it->second.dependencies;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  if (capture) mark_needed(roots, state, *capture);
  for (auto& [node, s] : state) s.buffer.resize(node->output_meta.size());
  for (size_t i = 0; i < roots.size(); ++i) accumulate(state[roots[i].fn.get()].buffer.at(roots[i].input_nr), root_grads[i]);

  auto later_first = [](const Node* a, const Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  for (auto& [node, s] : state)
    if (s.dependencies == 0) ready.push(node);

  NoGradGuard no_grad;  // backward formulas record nothing (no create_graph)
  // Each backward runs in the dtypes its forward ran in: an open autocast scope must not recast them.
  detail::AutocastExcluded no_autocast;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    // The scopes PyTorch's profiler shows: the engine's whole step for the node (retained gradients,
    // the node, passing its gradients on) around the node's own scope, around its formula's ops.
    const ScopeLink link = forward_link(*n);
    RecordFunction step([n] { return "autograd::engine::evaluate_function: " + n->name(); }, RecordScope::Function,
                        link);
    NodeState& s = state[n];
    if (capture) {
      if (auto it = capture->at.find(n); it != capture->at.end())
        for (const Capture::Slot& slot : it->second) capture->grads[slot.index] = s.buffer.at(slot.input_nr);
      // Nothing captured lies below: the nodes behind this one wait for gradients that never come.
      if (!s.needed) continue;
    }
    retain_grads(*n, s.buffer);
    TensorList in;
    {
      RecordFunction node_scope([n] { return n->name(); }, RecordScope::Function, link);
      in = n->apply(std::move(s.buffer));
    }
    // As in PyTorch, a node's saved tensors go as soon as it has run: the activations held for
    // backward are freed during it, not all at its end.
    if (!retain_graph) n->release_saved();
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      NodeState& next = state[e.fn.get()];
      if (i < in.size() && in[i].defined()) {
        check_gradient(*n, i, in[i], e);
        accumulate(next.buffer.at(e.input_nr), in[i]);
      }
      if (--next.dependencies == 0) ready.push(e.fn.get());
    }
  }
}

std::vector<Edge> root_edges(const TensorList& tensors, const TensorList& grads, TensorList& root_grads) {
  TL_CHECK(grads.empty() || grads.size() == tensors.size(), "backward: got ", grads.size(), " gradients for ",
           tensors.size(), " tensors");
  std::vector<Edge> edges;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].defined(), "backward: element ", i, " of tensors is undefined (None)");
    root_grads.push_back(root_gradient(tensors[i], grads.empty() ? Tensor() : grads[i], i));
    edges.push_back(gradient_edge(tensors[i]));
  }
  return edges;
}

}  // namespace

void backward(const TensorList& tensors, const TensorList& grad_tensors, bool retain_graph) {
  TensorList root_grads;
  const std::vector<Edge> roots = root_edges(tensors, grad_tensors, root_grads);
  run(roots, std::move(root_grads), retain_graph, nullptr);
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                bool retain_graph, bool allow_unused) {
  TL_CHECK(!inputs.empty(), "grad requires non-empty inputs");
  TensorList root_grads;
  const std::vector<Edge> roots = root_edges(outputs, grad_outputs, root_grads);
  Capture capture;
  capture.grads.resize(inputs.size());
  // An input's accumulator is held weakly by its leaf: kept alive here so the captured node stays the same.
  std::vector<std::shared_ptr<Node>> keep;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TL_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "grad: input ", i, " does not require grad");
    const Edge e = gradient_edge(inputs[i]);
    capture.at[e.fn.get()].push_back({e.input_nr, i});
    keep.push_back(e.fn);
  }
  run(roots, std::move(root_grads), retain_graph, &capture);
  for (size_t i = 0; i < inputs.size(); ++i)
    TL_CHECK(allow_unused || capture.grads[i].defined(), "grad: input ", i,
             " was not used in the graph of the outputs; pass allow_unused=true to get None for it");
  return capture.grads;
}

}  // namespace tl::autograd
