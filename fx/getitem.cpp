// fx/getitem.cpp — operator.getitem's key both ways (FX argument <-> Tensor::index list) and its run.
#include "fx/getitem.h"

#include <algorithm>

#include "fx/node.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

}  // namespace

GetItemKey GetItemKey::parse(const Argument& key, std::vector<Node*>& inputs, const std::string& node_name) {
  GetItemKey out;
  const size_t first = inputs.size();  // the key's own nodes are counted from here
  const bool tuple = key.is_list() && key.as_list().is_tuple;
  out.tuple_ = tuple;
  const std::vector<Argument> one{key};
  for (const Argument& a : tuple ? key.as_list().items : one) {
    Entry e;
    const Argument::Value& v = a.value();
    if (Node* n = a.node()) {
      e.kind = Kind::Tensor;
      e.input = static_cast<int64_t>(inputs.size() - first);
      inputs.push_back(n);
    } else if (const bool* b = std::get_if<bool>(&v)) {
      e.kind = Kind::Boolean;
      e.integer = *b;
    } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
      e.kind = Kind::Integer;
      e.integer = *i;
    } else if (const indexing::Slice* s = std::get_if<indexing::Slice>(&v)) {
      e.kind = Kind::Slice;
      e.slice = *s;
    } else if (std::holds_alternative<indexing::EllipsisIndexType>(v)) {
      e.kind = Kind::Ellipsis;
    } else if (a.is_none()) {
      e.kind = Kind::None;
    } else {
      const bool ints = a.is_list() && !a.as_list().is_tuple &&
                        std::all_of(a.as_list().items.begin(), a.as_list().items.end(), [](const Argument& item) {
                          return std::holds_alternative<int64_t>(item.value());
                        });
      TL_CHECK(ints, "GraphModule: getitem '", node_name, "' cannot index with ", format_arg(a),
               "; an index is an int, a slice, None, Ellipsis, a bool, a node, a list of ints, or a tuple of these");
      e.kind = Kind::Tensor;
      for (const Argument& item : a.as_list().items) e.ints.push_back(std::get<int64_t>(item.value()));
    }
    out.entries_.push_back(std::move(e));
  }
  return out;
}

std::optional<int64_t> GetItemKey::tuple_index() const {
  if (tuple_ || entries_.size() != 1 || entries_[0].kind != Kind::Integer) return std::nullopt;
  return entries_[0].integer;
}

std::vector<TensorIndex> GetItemKey::index_list(std::span<const Tensor> tensors) const {
  std::vector<TensorIndex> out;
  for (const Entry& e : entries_) {
    switch (e.kind) {
      case Kind::None: out.emplace_back(indexing::None); break;
      case Kind::Ellipsis: out.emplace_back(indexing::Ellipsis); break;
      case Kind::Integer: out.emplace_back(e.integer); break;
      case Kind::Boolean: out.emplace_back(e.integer != 0); break;
      case Kind::Slice: out.emplace_back(e.slice); break;
      case Kind::Tensor:
        if (e.input >= 0) out.emplace_back(tensors[static_cast<size_t>(e.input)]);
        else out.emplace_back(from_vector<int64_t>(e.ints.vec(), {static_cast<int64_t>(e.ints.size())}));
        break;
    }
  }
  return out;
}

Argument getitem_key(std::span<const TensorIndex> indices, const std::function<Argument(const Tensor&)>& tensor_argument) {
  std::vector<Argument> items;
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::None: items.emplace_back(); break;
      case Kind::Ellipsis: items.emplace_back(indexing::Ellipsis); break;
      case Kind::Integer: items.emplace_back(i.integer()); break;
      case Kind::Boolean: items.emplace_back(i.boolean()); break;
      case Kind::Slice: items.emplace_back(i.slice()); break;
      case Kind::Tensor: {
        Tensor t;
        static_cast<TensorBase&>(t) = i.tensor();
        items.push_back(tensor_argument(t));
        break;
      }
    }
  }
  if (items.size() == 1) return items[0];
  return Argument::list(std::move(items), /*is_tuple=*/true);
}

NodeValue getitem(const NodeValue& value, const GetItemKey& key, std::span<const Tensor> key_tensors) {
  if (value.is_list()) {
    const std::optional<int64_t> index = key.tuple_index();
    const TensorList& items = value.list("getitem");
    const int64_t n = static_cast<int64_t>(items.size());
    TL_CHECK(index.has_value(), "getitem: a tuple of ", n, " values takes an integer index");
    TL_CHECK(*index >= -n && *index < n, "getitem: index ", *index, " out of range for ", n, " values");
    return items[static_cast<size_t>(*index < 0 ? *index + n : *index)];
  }
  const std::vector<TensorIndex> indices = key.index_list(key_tensors);
  return value.tensor("getitem").index(std::span<const TensorIndex>(indices));
}

}  // namespace tl::fx
