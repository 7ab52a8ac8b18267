// fx/codegen.h — the Python source FX generates for a graph (GraphModule.code), byte for byte:
// one statement per node, each value set to None after its last use.
#pragma once

#include <string>

#include "fx/graph.h"

namespace tl::fx {

/// "\n\n\ndef forward(self, x : torch.Tensor) -> torch.Tensor:\n    conv1 = self.conv1(x);  x = None\n ...".
std::string python_code(const Graph& graph);

}  // namespace tl::fx
