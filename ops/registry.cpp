// ops/registry.cpp — dispatch::call, the one function every op goes through, over the row table that
// core/gen_ops.py generates from core/native_functions.toml (ops/op_registry.cpp).
#include "core/dispatch.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/autocast.h"
#include "core/autograd_meta.h"
#include "core/boxing.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "core/schema.h"
#include "core/warning.h"
#include "ops/autocast.h"
#include "ops/elementwise.h"

namespace tl {

namespace {

// The tensor arguments of an op's schema, in order: what dispatch::call checks before a kernel runs.
struct TensorArgs {
  std::vector<const SchemaArg*> args;
  bool list = false;         // a Tensor[] / Tensor?[] argument: the inputs its neighbours leave (Schema::tensor_slots)
  std::vector<size_t> written;  // Schema::written_inputs of a call with one tensor per argument
  bool takes_quantized = false; // tag "quantized": the kernel takes quantized tensors
};

const std::array<TensorArgs, kNumOps>& tensor_args() {
  static const std::array<TensorArgs, kNumOps> table = [] {
    std::array<TensorArgs, kNumOps> out;
    for (int i = 0; i < kNumOps; ++i) {
      const Schema& s = schema_of(static_cast<OpKind>(i));
      for (const SchemaArg& a : s.args) {
        if (a.is_tensor()) out[i].args.push_back(&a);
        out[i].list = out[i].list || a.is_tensor_list();
      }
      out[i].written = s.written_inputs(out[i].args.size());
      out[i].takes_quantized = s.has_tag(OpTag::Quantized);
    }
    return out;
  }();
  return table;
}

// Calls `f` with each input a call writes: fixed per op, unless a list argument (its length the call's) comes first.
template <typename F>
void for_each_written(OpKind op, const TensorArgs& spec, size_t num_inputs, const F& f) {
  if (!spec.list) {
    for (size_t w : spec.written) f(w);
    return;
  }
  for (size_t w : schema_of(op).written_inputs(num_inputs)) f(w);
}

// Kernels read their tensors by position: a missing or undefined required one must be a tl::Error
// here rather than a read past the span or through a null tensor. The second operand of a Python
// binary operator's op may instead come as a number in its arguments struct (x + 2); the kernel reads it there.
// Returns how many tensors the kernel reads: trailing optional ones a caller left out are passed as None.
// `has_number()` says whether a number came for the second operand.
template <typename HasNumber>
size_t check_inputs(OpKind op, std::span<const Tensor> inputs, const HasNumber& has_number) {
  const TensorArgs& spec = tensor_args()[static_cast<size_t>(op)];
  if (spec.list) {
    TL_CHECK(inputs.size() >= spec.args.size(), op_name(op), ": got ", inputs.size(), " tensor inputs, expected at least ",
             spec.args.size());
    const Schema& schema = schema_of(op);
    const auto slots = schema.tensor_slots(inputs.size());
    size_t k = 0;
    for (const SchemaArg& a : schema.args) {
      if (!a.is_tensor() && !a.is_tensor_list()) continue;
      const auto [begin, end] = slots[k++];
      if (a.is_optional() || a.has_optional_entries()) continue;
      for (size_t i = begin; i < end; ++i)
        TL_CHECK(inputs[i].defined(), op_name(op), ": expected a tensor ",
                 a.is_tensor_list() ? "at position " + std::to_string(i - begin) + " of the list" : "for '" + a.name + "'",
                 ", got None");
    }
    return inputs.size();
  }
  TL_CHECK(inputs.size() <= spec.args.size(), op_name(op), ": got ", inputs.size(),
           " tensor inputs, expected at most ", spec.args.size());
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const SchemaArg& a = *spec.args[i];
    if (a.is_optional()) continue;
    if (i < inputs.size()) {
      TL_CHECK(inputs[i].defined(), op_name(op), ": expected a tensor for '", a.name, "', got None");
    } else {
      TL_CHECK(i == 1 && op_info(op).number_operand && has_number(), op_name(op), ": missing tensor argument '",
               a.name, "'");
      return inputs.size();
    }
  }
  return spec.args.size();
}

// ATen's MemoryOverlap checks on every tensor the op writes (`Tensor(a!)`), before autograd, hooks or the
// kernel see the call, so one that throws has written and drawn nothing: a written tensor whose elements
// share memory is refused (or warned about, as PyTorch 1.13 deprecates it for masked_fill_), and so is an
// input overlapping it partly, or at all when the op reads its inputs out of position (tag no_overlap).
void check_writes(OpKind op, std::span<const Tensor> inputs, const TensorArgs& spec) {
  const Schema& schema = schema_of(op);
  const std::string_view name = op_name(op);
  for_each_written(op, spec, inputs.size(), [&](size_t w) {
    // A traced proxy (no storage) is written by nothing yet: tracing records the op and checks nothing.
    if (w >= inputs.size() || !inputs[w].defined() || !inputs[w].storage()) return;
    const Tensor& out = inputs[w];
    if (schema.has_tag(OpTag::ExpandedWriteWarns) && detail::has_internal_overlap(out)) {
      // PyTorch's example is the indexing form of the op: index_put_ takes a list of indices, masked_fill_ a mask.
      warn("Use of ", name, " on expanded tensors is deprecated. Please clone() the tensor before performing this "
           "operation. This also applies to advanced indexing e.g. ",
           spec.list ? "tensor[indices] = tensor" : "tensor[mask] = scalar");
    } else {
      detail::check_no_internal_overlap(out, name);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (i != w && inputs[i].defined()) detail::check_no_overlap(out, inputs[i], name, !schema.has_tag(OpTag::NoOverlap));
  });
}

// ATen's dispatcher finds no QuantizedCPU kernel for an op without the tag: one refusal here, for every op.
void check_not_quantized(OpKind op, std::span<const Tensor> inputs) {
  for (const Tensor& t : inputs)
    TL_CHECK(!t.defined() || !t.is_quantized(), "Could not run '", op_info(op).aten_name, "' with arguments from the "
             "'QuantizedCPU' backend. This could be because the operator doesn't exist for this backend (", t.dtype(),
             " input; dequantize() it first)");
}

bool any_requires_grad(std::span<const Tensor> inputs) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

}  // namespace

std::string_view op_name(OpKind op) {
  std::string_view schema = op_info(op).schema;
  return schema.substr(0, std::min(schema.find('('), schema.find('.')));
}

namespace dispatch {

TensorList call_typed(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style) {
  const auto has_number = [&] { return op_info(op).number_operand(args) != nullptr; };
  if (const size_t read = check_inputs(op, inputs, has_number); read > inputs.size()) [[unlikely]] {
    TensorList padded(inputs.begin(), inputs.end());
    padded.resize(read);
    return call_typed(op, padded, args, style);
  }
  const TensorArgs& spec = tensor_args()[static_cast<size_t>(op)];
  if (!spec.takes_quantized) check_not_quantized(op, inputs);
  if (!spec.written.empty()) check_writes(op, inputs, spec);
  if (is_autocast_enabled()) [[unlikely]] {
    if (const AutocastPolicy policy = op_info(op).autocast; policy != AutocastPolicy::None)
      return detail::autocast_call(op, policy, inputs, args, style);
  }
  if (GradMode::is_enabled() && any_requires_grad(inputs)) [[unlikely]] {
    const AutogradFn record = autograd_fn();
    TL_INTERNAL_ASSERT(record != nullptr, op_name(op), ": an input requires grad but no autograd is linked");
    return record(op, inputs, args, style);
  }
  return call_kernel(op, inputs, args, style);
}

TensorList call(const OpArgs& args, std::span<const Tensor> inputs, CallStyle style) {
  return call_typed(args.op(), inputs, args.get(), style);
}

TensorList call(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs, CallStyle style) {
  // The tensors first: a tensor passed by name among the attributes is reported as the missing tensor.
  check_inputs(op, inputs, [&] { return attrs.find(tensor_args()[static_cast<size_t>(op)].args[1]->name) != nullptr; });
  return call(op_info(op).unbox(attrs), inputs, style);
}

TensorList call_kernel(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style,
                       int64_t sequence_nr) {
  const RunFn run = op_info(op).run;
  TensorList out = has_hooks() ? call_with_hooks(OpCall{op, style, inputs, args, sequence_nr},
                                                 [&] { return run(inputs, args); })
                               : run(inputs, args);
  const TensorArgs& spec = tensor_args()[static_cast<size_t>(op)];
  for_each_written(op, spec, inputs.size(), [&](size_t i) {
    if (i < inputs.size() && inputs[i].defined() && inputs[i].storage()) inputs[i].storage()->bump_version();
  });
  // A view knows its base (whether or not anything requires grad), so an in-place write through it
  // can later be differentiated into the base, as PyTorch tracks views.
  if (schema_of(op).returns_view_of_self && !out.empty() && out[0].defined() && out[0].storage() &&
      !out[0].is_same(inputs[0]) && out[0].storage() == inputs[0].storage())
    TensorImplAccess::mark_view(out[0], inputs[0]);
  return out;
}

Tensor call_single_output(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs, CallStyle style) {
  TensorList out = call(op, inputs, attrs, style);
  TL_INTERNAL_ASSERT(out.size() == 1, op_info(op).aten_name, " returned ", out.size(), " outputs");
  return std::move(out[0]);
}

Tensor call_single_output(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs, CallStyle style) {
  return call_single_output(op, std::span<const Tensor>(inputs.begin(), inputs.size()), attrs, style);
}

}  // namespace dispatch
}  // namespace tl
