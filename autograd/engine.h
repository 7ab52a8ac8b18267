// autograd/engine.h — runs the backward graph: torch.autograd.backward and torch.autograd.grad.
#pragma once

#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace tl::autograd {

/// Computes the gradients of `tensors` (weighted by `grad_tensors`; an undefined entry stands for 1
/// and is allowed only for a one-element tensor) with respect to the graph's leaves and adds them into
/// the leaves' .grad. Unless `retain_graph`, each node's saved tensors are freed as soon as it has run
/// (as in PyTorch: activations go during backward). Throws tl::Error, before any .grad
/// changes, for a tensor that does not require grad, a gradient of another shape, and a graph freed by
/// an earlier backward.
void backward(const TensorList& tensors, const TensorList& grad_tensors = {}, bool retain_graph = false);

/// torch.autograd.grad: the gradients of `outputs` with respect to `inputs` (leaves or not; an input
/// given twice gets its gradient twice), returned instead of accumulated. Only the nodes between the
/// outputs and the inputs run: no leaf's .grad changes, and a retained gradient changes only on a node
/// that ran. An input the outputs do not depend on gets an undefined tensor when `allow_unused`, else
/// tl::Error. Throws tl::Error, before running anything, for no inputs ("grad requires non-empty inputs")
/// and for an input that does not require grad.
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                bool retain_graph = false, bool allow_unused = false);

}  // namespace tl::autograd
