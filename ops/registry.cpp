// ops/registry.cpp — the kernel table generated from core/op_list.h, and dispatch::call, the one
// function every op goes through.
#include "core/dispatch.h"

namespace tl {
namespace {

const OpInfo kRegistry[] = {
#define TL_OP_ROW(Enum, kernel, aten, schema, pyop) {aten, schema, pyop, &kernels::kernel},
    TL_FORALL_OPS(TL_OP_ROW)
#undef TL_OP_ROW
};
static_assert(sizeof(kRegistry) / sizeof(kRegistry[0]) == kNumOps);

}  // namespace

const OpInfo& op_info(OpKind op) { return kRegistry[static_cast<size_t>(op)]; }

std::string_view op_name(OpKind op) {
  std::string_view schema = op_info(op).schema;
  return schema.substr(0, schema.find('('));
}

namespace dispatch {

TensorList call(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs, CallStyle style) {
  const KernelFn kernel = kRegistry[static_cast<size_t>(op)].kernel;
  if (!has_hooks()) [[likely]]
    return kernel(inputs, attrs);
  return call_with_hooks(OpCall{op, style, inputs, attrs}, kernel);
}

Tensor call1(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs, CallStyle style) {
  TensorList out = call(op, inputs, attrs, style);
  TL_INTERNAL_ASSERT(out.size() == 1, op_info(op).aten_name, " returned ", out.size(), " outputs");
  return std::move(out[0]);
}

Tensor call1(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs, CallStyle style) {
  return call1(op, std::span<const Tensor>(inputs.begin(), inputs.size()), attrs, style);
}

}  // namespace dispatch
}  // namespace tl
