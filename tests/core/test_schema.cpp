// tests/core/test_schema.cpp — the op list's schemas parse into arguments, alias and mutation marks,
// returns and tags, and the list keeps PyTorch's conventions for them.
#include <doctest/doctest.h>

#include <string>

#include "core/op_kind.h"
#include "core/schema.h"

namespace tl {
namespace {

TEST_CASE("schema: arguments, defaults and keyword-only marks") {
  const Schema& conv = schema_of(OpKind::Conv2d);
  CHECK(conv.name == "conv2d");
  REQUIRE(conv.args.size() == 7);
  CHECK(conv.args[1].name == "weight");
  CHECK(conv.args[2].type == "Tensor?");
  CHECK(conv.args[2].is_optional());
  CHECK(conv.args[3].list_length() == 2);
  CHECK(std::get<Shape>(*conv.args[3].default_) == Shape{1, 1});
  CHECK_FALSE(conv.args[3].kwarg_only);
  const Schema& empty = schema_of(OpKind::Empty);
  CHECK(empty.args[1].kwarg_only);
  CHECK(std::get<DType>(*empty.args[1].default_) == DType::Float32);
}

TEST_CASE("schema: a bool[N] list is carried as a Shape of 1 (True) and 0 (False)") {
  const SchemaArg& mask = schema_of(OpKind::ConvolutionBackward).args.back();
  CHECK(mask.name == "output_mask");
  CHECK(mask.type == "bool[3]");
  CHECK(mask.list_length() == 3);
  CHECK(mask.base_type() == "bool");
  CHECK_FALSE(mask.default_.has_value());
  const Schema s = parse_schema("f(Tensor self, bool[3] mask=[True, False, True], bool[2] both=True, bool flag=False, "
                                "int[2] pad=[1, 0]) -> Tensor");
  REQUIRE(s.args.size() == 5);
  CHECK(std::get<Shape>(*s.args[1].default_) == Shape{1, 0, 1});
  CHECK(std::get<Shape>(*s.args[2].default_) == Shape{1, 1});  // one value stands for every element
  CHECK(std::get<bool>(*s.args[3].default_) == false);
  CHECK(std::get<Shape>(*s.args[4].default_) == Shape{1, 0});
}

TEST_CASE("schema: alias and mutation marks, as PyTorch's schema language writes them") {
  const Schema& add_ = schema_of(OpKind::Add_);
  CHECK(add_.args[0].alias_set == "a");
  CHECK(add_.args[0].is_write);
  CHECK(add_.args[0].base_type() == "Tensor");
  CHECK(add_.args[1].alias_set.empty());
  CHECK(add_.returns.at(0).alias_set == "a");
  CHECK(add_.is_mutable());

  const Schema& view = schema_of(OpKind::View);
  CHECK(view.args[0].alias_set == "a");
  CHECK_FALSE(view.args[0].is_write);
  CHECK_FALSE(view.is_mutable());

  const Schema& add = schema_of(OpKind::Add);
  CHECK_FALSE(add.is_mutable());
  CHECK(add.out_index() == -1);

  const Schema& to_dense = schema_of(OpKind::ToDense);
  REQUIRE(to_dense.out_index() >= 0);
  const SchemaArg& out = to_dense.args[static_cast<size_t>(to_dense.out_index())];
  CHECK(out.name == "out");
  CHECK(out.kwarg_only);
  CHECK(out.is_write);
  CHECK(out.is_optional());
  CHECK(out.is_tensor());
}

TEST_CASE("schema: which inputs a call writes and which result is a view, answered once") {
  CHECK(schema_of(OpKind::Add_).written_args == std::vector<size_t>{0});
  CHECK(schema_of(OpKind::Add_).written_inputs(2) == std::vector<size_t>{0});
  CHECK(schema_of(OpKind::Add).written_inputs(2).empty());
  // index_put_(self, indices, values): self is input 0 whatever the number of indices.
  const Schema& index_put_ = schema_of(OpKind::IndexPut_);
  CHECK(index_put_.written_inputs(2) == std::vector<size_t>{0});
  CHECK(index_put_.written_inputs(5) == std::vector<size_t>{0});
  // A written argument after a list sits at the end of the call's span, wherever the list ends.
  const Schema cat_out = parse_schema("cat(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)");
  CHECK(cat_out.written_args == std::vector<size_t>{2});
  CHECK(cat_out.written_inputs(3) == std::vector<size_t>{2});
  CHECK(cat_out.written_inputs(5) == std::vector<size_t>{4});
  // The keyword-only out= result of to_dense is its last tensor input.
  const Schema& to_dense = schema_of(OpKind::ToDense);
  CHECK(to_dense.written_inputs(2) == std::vector<size_t>{1});

  CHECK(schema_of(OpKind::View).returns_view_of_self);
  CHECK_FALSE(schema_of(OpKind::Add_).returns_view_of_self);  // it returns self itself, written
  CHECK_FALSE(schema_of(OpKind::Add).returns_view_of_self);
}

TEST_CASE("schema: returns") {
  CHECK(schema_of(OpKind::Add).returns_one_tensor());
  const Schema& max = schema_of(OpKind::Max);
  REQUIRE(max.returns.size() == 2);
  CHECK(max.returns[0].name == "values");
  CHECK(max.returns[1].name == "indices");
  CHECK_FALSE(max.returns_one_tensor());
  CHECK(schema_of(OpKind::Nonzero).returns.at(0).is_tensor_list());
  CHECK_FALSE(schema_of(OpKind::Nonzero).returns_one_tensor());
  CHECK(schema_of(OpKind::Allclose).returns.at(0).type == "bool");
  CHECK_FALSE(schema_of(OpKind::Allclose).returns_one_tensor());
}

TEST_CASE("schema: tags") {
  CHECK(schema_of(OpKind::Add).has_tag(OpTag::Pointwise));
  CHECK(schema_of(OpKind::Relu_).has_tag(OpTag::Pointwise));
  CHECK_FALSE(schema_of(OpKind::Matmul).has_tag(OpTag::Pointwise));
  CHECK(schema_of(OpKind::Randn).has_tag(OpTag::NondeterministicSeeded));
  CHECK(schema_of(OpKind::Dropout).has_tag(OpTag::NondeterministicSeeded));
  CHECK_FALSE(schema_of(OpKind::Conv2d).has_tag(OpTag::NondeterministicSeeded));
}

TEST_CASE("schema: an overload's name is its op's, its overload apart") {
  const Schema& s = schema_of(OpKind::PowScalar);
  CHECK(s.name == "pow");
  CHECK(s.overload_name == "Scalar");
  CHECK(op_name(OpKind::PowScalar) == "pow");
  CHECK(op_info(OpKind::PowScalar).aten_name == std::string("aten::pow"));
  CHECK(op_by_name("pow") == OpKind::Pow);
  CHECK(schema_of(OpKind::Pow).overload_name.empty());
  CHECK(s.args[0].type == "Scalar");
}

TEST_CASE("schema: every row keeps PyTorch's conventions") {
  for (int i = 0; i < kNumOps; ++i) {
    const OpKind op = static_cast<OpKind>(i);
    const Schema& s = schema_of(op);
    const std::string name = s.name;
    CAPTURE(name);
    // An overload (pow.Scalar) shares its name with the op's first row, which op_by_name finds.
    if (s.overload_name.empty()) CHECK(op_by_name(name) == op);
    else CHECK(schema_of(*op_by_name(name)).overload_name.empty());
    // A row without an aten name is Python's own (Tensor.__rtruediv__), named as Python names it.
    const std::string aten = op_info(op).aten_name;
    // The int8 kernels are ATen's QuantizedCPU ops: quantized_X profiles as quantized::X (ATen's `quantized`
    // namespace) or as the aten:: op ATen runs for a quantized input (aten::quantized_max_pool2d,
    // aten::_adaptive_avg_pool2d); every other row is aten::<its name>.
    const std::string quantized = "quantized_";
    const bool int8 = name.starts_with(quantized);
    if (aten.empty()) CHECK((name.starts_with("__") && name.ends_with("__")));
    else if (int8) CHECK((aten == "quantized::" + name.substr(quantized.size()) || aten == "aten::" + name ||
                          aten == "aten::_" + name.substr(quantized.size())));
    else CHECK(aten == "aten::" + name);
    REQUIRE_FALSE(s.returns.empty());
    for (const SchemaArg& a : s.args) {
      CHECK_FALSE(a.name.empty());
      if (!a.alias_set.empty()) CHECK(a.base_type() == "Tensor");
      // A written argument is the in-place op's `self` or a keyword-only `out`.
      if (a.is_write) CHECK((a.name == "self" || (a.name == "out" && a.kwarg_only)));
    }
    // In-place ops (a trailing '_', not a dunder's) write `self` and return it.
    if (name.back() == '_' && !aten.empty()) {
      CHECK(s.args.at(0).is_write);
      CHECK(s.returns.at(0).alias_set == s.args.at(0).alias_set);
      CHECK(s.returns.at(0).is_write);
    } else {
      CHECK_FALSE(s.args.at(0).is_write);
    }
  }
}

}  // namespace
}  // namespace tl
