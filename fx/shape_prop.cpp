// fx/shape_prop.cpp — shape propagation and the annotated graph print.
#include "fx/shape_prop.h"

#include <sstream>

namespace tl::fx {

Value ShapeProp::run_node(Node& n) {
  Value v = Interpreter::run_node(n);
  if (v.is_tensor()) n.meta()["tensor_meta"] = TensorMeta{v.tensor().shape(), v.tensor().dtype()};
  return v;
}

std::string graph_with_shapes(const Graph& graph) {
  std::string s = "graph():";
  for (Node* n : graph.nodes()) {
    std::string line = n->format();
    if (const TensorMeta* m = n->tensor_meta()) {
      std::ostringstream annotation;
      annotation << " " << m->shape << " " << m->dtype;
      const size_t eq = line.find(" = ");
      if (eq != std::string::npos) line.insert(eq, annotation.str());
    }
    s += "\n    " + line;
  }
  return s;
}

}  // namespace tl::fx
