// ao/quantization/fuse.h — fuse_fx as PyTorch 1.13's prepare_fx runs it first (torch.ao.quantization.fx.fuse):
// each BackendConfig fusion chain (conv-bn-relu, conv-relu, linear-relu, bn-relu) becomes one module at the root
// op's path, batch norms folded (eval mode), the chain's other nodes gone.
#pragma once

#include <memory>

#include "ao/quantization/backend_config.h"
#include "fx/graph_module.h"

namespace tl::ao::quantization {

/// A new GraphModule: `model`'s symbolic trace (or a copy of it, when it is a GraphModule) with every fusion
/// pattern of `backend_config` fused, as PyTorch's fuser methods build the modules (ConvReLU2d and LinearReLU
/// hold the matched modules themselves; a conv followed by a batch norm becomes fx::fuse_conv_bn_eval's
/// Conv2d; a functional relu becomes a new ReLU()). `model` is never modified. Throws tl::Error, changing
/// nothing, when a batch norm would be folded while it or its conv is in training mode (PyTorch's "Fusion only
/// for eval!").
std::shared_ptr<fx::GraphModule> fuse_fx(const std::shared_ptr<tl::nn::Module>& model,
                                         const BackendConfig& backend_config = get_native_backend_config());

}  // namespace tl::ao::quantization
