// autograd/node.h — the backward graph: a Node per recorded op, edges to the nodes (or leaf
// accumulators) that made its inputs, and saved tensors that check their version at backward.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace tl::autograd {

class Node;

/// Where a gradient goes: input `input_nr` of `fn` (an undefined edge has no fn).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// What a node knows of a tensor its op saw: an input (a formula's `self_info`) or an output (the
/// gradient arriving for it must match); defined == false for one that was None.
struct TensorInfo {
  Shape shape;
  DType dtype = DType::Float32;
  bool defined = false;
};
/// Deprecated in 0.2.0, removed in 0.3.0: the node's output meta and a formula's input info are one
/// type, TensorInfo.
using GradMeta [[deprecated("tl::autograd::GradMeta is tl::autograd::TensorInfo")]] = TensorInfo;
using InputInfo [[deprecated("tl::autograd::InputInfo is tl::autograd::TensorInfo")]] = TensorInfo;

/// A tensor kept for backward: an alias with no autograd history (no reference cycle through its
/// grad_fn) and the version its storage had, checked when backward reads it.
class SavedTensor {
 public:
  SavedTensor() = default;
  /// `is_output`: the tensor is an output of the node that saves it (the error text says so).
  SavedTensor(const Tensor& t, bool is_output);
  /// The saved tensor; throws tl::Error when an in-place op changed it since it was saved, or when it
  /// was freed by a backward without retain_graph.
  Tensor unpack(const Node& owner) const;
  void reset() { data_ = Tensor(); freed_ = true; }
  /// True when something was saved here (also after backward freed it).
  bool defined() const { return data_.defined() || freed_; }

 private:
  Tensor data_;
  int64_t version_ = 0;
  bool is_output_ = false;
  bool freed_ = false;
};

/// One node of the backward graph: given the gradients of its forward outputs it returns the
/// gradients of its forward inputs, one per next edge.
class Node {
 public:
  Node();
  /// Releases the graph behind this node iteratively (PyTorch's deleteNode): the nodes only this one
  /// keeps alive are taken into a worklist and emptied before they are destroyed, so dropping a chain
  /// of any length recurses once, not once per node. Nodes someone else holds stay intact.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's Node::name(), which its profiler prints: "MulBackward0", "torch::autograd::AccumulateGrad".
  virtual std::string name() const = 0;
  /// `grads[i]` is the gradient of forward output i (undefined when nothing flowed into it). Returns
  /// one gradient per next edge (undefined for none).
  virtual TensorList apply(TensorList grads) = 0;
  /// Drops the saved tensors (backward without retain_graph).
  virtual void release_saved() {}
  /// True when the node saved tensors that release_saved() freed.
  virtual bool released() const { return false; }

  std::vector<Edge> next_edges;
  std::vector<TensorInfo> output_meta;  ///< one per forward output
  /// Order of creation: a node made later runs earlier in backward (PyTorch's sequence_nr).
  uint64_t sequence_nr;
  /// current_thread_id() of the thread that recorded the node (PyTorch's thread_id_): the profiler
  /// links the node's backward scopes to the forward op by (forward_thread, sequence_nr).
  uint64_t forward_thread;
  /// Non-leaf tensors that asked retain_grad(), per forward output.
  std::vector<std::vector<std::weak_ptr<TensorImpl>>> retained;

 protected:
  /// Moves into `out` the nodes this node keeps alive besides its next edges' (CopySlices' op node),
  /// so that they are released with the edges, iteratively.
  virtual void take_held_nodes(std::vector<std::shared_ptr<Node>>&) {}

 private:
  friend void gather_nodes(Node& n, std::vector<std::shared_ptr<Node>>& stack);
};

/// The sink of a leaf's gradients: adds them into the leaf's .grad, unless the leaf no longer requires grad.
class AccumulateGrad final : public Node {
 public:
  /// Called with the leaf each time this node has run (its .grad then holds the sum so far).
  using PostHook = std::function<void(const Tensor& leaf)>;

  explicit AccumulateGrad(Tensor leaf);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  TensorList apply(TensorList grads) override;
  const Tensor& variable() const { return leaf_; }
  /// Runs `hook` after every apply(), in the order the hooks were added: the post hooks through which
  /// c10d's Reducer learns that a parameter's gradient is ready (PyTorch 2's
  /// Tensor.register_post_accumulate_grad_hook). They live as long as this node, which the leaf holds
  /// only weakly: keep gradient_edge(leaf).fn to keep them.
  void add_post_hook(PostHook hook) { post_hooks_.push_back(std::move(hook)); }

 private:
  Tensor leaf_;
  std::vector<PostHook> post_hooks_;
};

/// The edge a gradient of `t` flows along: its grad_fn output, or its leaf accumulator (made once per
/// leaf and shared), or none when `t` does not require grad. A view whose base was written in place
/// since its history was set gets a history from the base's first (refresh_view_history).
Edge gradient_edge(const Tensor& t);
/// Rebuilds a view's history as "this part of its base" on the base's current history.
void refresh_view_history(const Tensor& view);

}  // namespace tl::autograd
