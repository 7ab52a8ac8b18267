// ao/quantization/prepare.h — prepare_fx as PyTorch 1.13's torch.ao.quantization.quantize_fx.prepare_fx (post-
// training, static): trace, fuse, then observers as call_module nodes activation_post_process_0, 1, ... where
// PyTorch 1.13 inserts them. Calibrating is running the result.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "ao/quantization/backend_config.h"
#include "ao/quantization/qconfig_mapping.h"
#include "fx/graph_module.h"

namespace tl::ao::quantization {

/// What prepare_fx returns, PyTorch's ObservedGraphModule: a GraphModule (it prints as one) that keeps what
/// convert_fx reads, the qconfig each node was prepared with (PyTorch's _qconfig_map, by node name: placeholders
/// and nodes left in float have None; observers are not in it).
class ObservedGraphModule : public fx::GraphModule {
 public:
  ObservedGraphModule(const fx::GraphModule& root, std::unique_ptr<fx::Graph> graph,
                      std::unordered_map<std::string, QConfigAny> qconfig_map);
  /// Whether `node_name` is in the qconfig map (a node of the graph prepare_fx made, not an observer).
  bool has_qconfig_entry(const std::string& node_name) const { return qconfig_map_.count(node_name) != 0; }
  /// The node's qconfig; None for a node left in float or not in the map.
  const QConfigAny& qconfig_of(const std::string& node_name) const;
  const std::unordered_map<std::string, QConfigAny>& qconfig_map() const { return qconfig_map_; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_compiled<ObservedGraphModule>(); }

 private:
  std::unordered_map<std::string, QConfigAny> qconfig_map_;
};

/// The observed GraphModule (an ObservedGraphModule) of `model` (which is never modified): fuse_fx, then for each
/// node in order, as insert_observers_for_model does with graph inputs and outputs left in float:
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
