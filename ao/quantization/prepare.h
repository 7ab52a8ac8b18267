// ao/quantization/prepare.h — prepare_fx as PyTorch 1.13's torch.ao.quantization.quantize_fx.prepare_fx (post-
// training, static): trace, fuse, then observers as call_module nodes activation_post_process_0, 1, ... where
// PyTorch 1.13 inserts them. Calibrating is running the result.
#pragma once

#include <memory>

#include "ao/quantization/backend_config.h"
#include "ao/quantization/qconfig_mapping.h"
#include "fx/graph_module.h"

namespace tl::ao::quantization {

/// The observed GraphModule of `model` (which is never modified): fuse_fx, then for each node in order, as
/// insert_observers_for_model does with graph inputs and outputs left in float:
///  - the root node of a matched pattern with a qconfig gets an observer (qconfig.activation) on each tensor
///    argument not already observed as quint8 (a functional op's weight: qconfig.weight; its bias: none); an
///    existing observer of that argument of the same type is reused;
///  - the last node of the pattern gets an output observer, its users read the observer; ops whose output
///    keeps its input's qparams (maxpool, flatten, cat, a binary op with one tensor) point that observer node
///    at the first input's observer module instead (cat: every input's too), or drop it when no observer is
///    found upstream;
///  - nodes of no pattern or with a None qconfig stay float: the next quantized op observes their output.
/// Observers are named activation_post_process_<first free index> and inserted right after the node they
/// observe; the result's modules are ordered by first use, as PyTorch's GraphModule(model, graph) orders them.
/// Throws tl::Error, changing nothing, when `model` is in training mode, when `example_inputs` does not hold
/// one tensor per forward() argument, or when a quantized node's qconfig observes activations in another dtype
/// than torch.quint8 (or a weight in another than torch.qint8), naming the node.
std::shared_ptr<fx::GraphModule> prepare_fx(const std::shared_ptr<tl::nn::Module>& model,
                                            const QConfigMapping& qconfig_mapping, const TensorList& example_inputs,
                                            const BackendConfig& backend_config = get_native_backend_config());

}  // namespace tl::ao::quantization
