// fx/shape_prop.cpp — shape propagation and the annotated graph print.
#include "fx/shape_prop.h"

#include <sstream>
#include <vector>

namespace tl::fx {

const char* memory_format_name(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return "torch.contiguous_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
  }
  return "torch.unknown_format";
}

bool is_contiguous(const Shape& shape, const Strides& strides, MemoryFormat format) {
  TL_CHECK(shape.size() == strides.size(), "is_contiguous: size ", shape, " and stride ", strides,
           " differ in length");
  std::vector<int64_t> order;  // dimensions from the fastest-varying (stride 1) outwards
  switch (format) {
    case MemoryFormat::Contiguous:
      if (numel_of(shape) == 0) return true;  // only this format's check has the shortcut
      for (int64_t d = shape.size() - 1; d >= 0; --d) order.push_back(d);
      break;
    case MemoryFormat::ChannelsLast:
      if (shape.size() != 4) return false;
      order = {1, 3, 2, 0};
      break;
    case MemoryFormat::ChannelsLast3d:
      if (shape.size() != 5) return false;
      order = {1, 4, 3, 2, 0};
      break;
  }
  int64_t expected = 1;
  for (int64_t d : order) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

TensorMeta extract_tensor_metadata(const Tensor& t) {
  TensorMeta meta{t.shape(), t.dtype(), t.strides(), std::nullopt};
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
    if (is_contiguous(t.shape(), t.strides(), f)) {
      meta.memory_format = f;
      break;
    }
  }
  return meta;
}

NodeValue ShapeProp::run_node(Node& n) {
  NodeValue v = Interpreter::run_node(n);
  if (v.is_tensor()) n.meta()["tensor_meta"] = extract_tensor_metadata(v.tensor());
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
