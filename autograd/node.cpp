// autograd/node.cpp — saved tensors' version checks, node numbering and the leaves' accumulators.
#include "autograd/node.h"

#include <atomic>
#include <mutex>
#include <sstream>

#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"

namespace tl::autograd {
namespace {

std::atomic<uint64_t> g_next_sequence_nr{0};

}  // namespace

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : data_(t.defined() ? TensorImplAccess::alias(t) : Tensor()), version_(t.defined() ? t._version() : 0),
      is_output_(is_output) {}

Tensor SavedTensor::unpack(const Node& owner) const {
  TL_CHECK(!freed_,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed): ", owner.name(), "'s saved tensors were freed by the first backward(). Specify "
           "retain_graph=true if you need to backward through the graph a second time.");
  if (data_.defined() && data_._version() != version_) {
    std::ostringstream what;
    what << "one of the variables needed for gradient computation has been modified by an inplace operation: ["
         << data_.dtype() << " " << data_.shape() << "]" << (is_output_ ? ", which is output 0 of " : ", saved by ")
         << owner.name() << ", is at version " << data_._version() << "; expected version " << version_
         << " instead.";
    TL_CHECK(false, what.str());
  }
  return data_;
}

Node::Node()
    : sequence_nr(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)), forward_thread(current_thread_id()) {}

// PyTorch's gatherFunctions: moves into `stack` the nodes that only `n` keeps alive and lets go of the
// others, so that destroying `n` afterwards destroys no other node.
void gather_nodes(Node& n, std::vector<std::shared_ptr<Node>>& stack) {
  auto take = [&](std::shared_ptr<Node>& fn) {
    if (fn.use_count() == 1) stack.push_back(std::move(fn));
    else fn.reset();
  };
  for (Edge& e : n.next_edges) take(e.fn);
  std::vector<std::shared_ptr<Node>> held;
  n.take_held_nodes(held);
  for (std::shared_ptr<Node>& fn : held) take(fn);
}

Node::~Node() {
  // The derived part is gone already (a CopySlices released its op node itself, the same way).
  std::vector<std::shared_ptr<Node>> stack;
  gather_nodes(*this, stack);
  while (!stack.empty()) {
    std::shared_ptr<Node> fn = std::move(stack.back());
    stack.pop_back();
    gather_nodes(*fn, stack);
  }  // fn, now with nothing behind it, is destroyed here
}

AccumulateGrad::AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
  output_meta.push_back({leaf_.shape(), leaf_.dtype()});
  // A leaf's accumulator runs after every node that feeds it.
  sequence_nr = UINT64_MAX;
}

TensorList AccumulateGrad::apply(TensorList grads) {
  Tensor& g = grads.at(0);
  // A leaf whose requires_grad was turned off since the forward gets nothing (PyTorch's check too).
  if (g.defined() && leaf_.requires_grad()) {
    NoGradGuard no_grad;
    AutogradMeta& meta = TensorImplAccess::ensure_meta(leaf_);
    std::lock_guard lock(meta.mutex);
    Tensor& slot = meta.grad;
    if (!slot.defined()) {
      // The incoming gradient may be shared (an expanded view, another node's buffer): .grad owns its data.
      // It is taken as it is only when nothing else can reach it: one handle (ours), one tensor on its storage;
      // and when laid out contiguously or as the leaf (a channels-last weight's channels-last gradient).
      const bool sole = TensorImplAccess::use_count(g) == 1 && g.storage().use_count() == 1;
      const bool layout = g.is_contiguous() || g.strides() == leaf_.strides();
      slot = sole && layout && g.dtype() == leaf_.dtype() ? g.detach() : g.to(leaf_.dtype()).clone();
    } else {
      slot.add_(g);
    }
  }
  for (const PostHook& hook : post_hooks_) hook(leaf_);
  return {};
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = TensorImplAccess::meta(t);
  if (meta && meta->base.defined() && meta->view_version != t._version() && meta->base.requires_grad())
    refresh_view_history(t);
  if (meta == nullptr || !meta->requires_grad) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  std::lock_guard lock(meta->mutex);
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta->grad_accumulator = acc;
  }
  return {acc, 0};
}

}  // namespace tl::autograd
