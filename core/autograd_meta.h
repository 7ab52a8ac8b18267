// core/autograd_meta.h — what a tensor carries for autograd: requires_grad, its accumulated .grad,
// the backward node that made it (grad_fn) and, for a view, its base. core only holds it; the
// autograd/ layer creates and reads it (nodes, the engine, derivative formulas).
#pragma once

#include <cstdint>
#include <memory>

#include "core/tensor.h"

namespace tl {
namespace autograd {
class Node;
}  // namespace autograd

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;  ///< a non-leaf whose .grad is kept (retain_grad())
  Tensor grad;                ///< accumulated gradient; undefined until a backward reaches it
  /// The node whose output this tensor is; null for a leaf.
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;  ///< which output of grad_fn
  /// A leaf's gradient accumulator, shared by every use of the leaf in one graph.
  std::weak_ptr<autograd::Node> grad_accumulator;
  /// For a view made while recording: the tensor whose storage it views (never itself a view).
  Tensor base;
};

}  // namespace tl
