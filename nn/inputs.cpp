// nn/inputs.cpp — the error of a forward() reading past the inputs its module declares.
#include "nn/inputs.h"

#include "nn/module.h"

namespace tl::nn {

void Inputs::throw_out_of_range(size_t i) const {
  const ForwardSignature sig = module_->forward_signature();
  std::string names;
  for (const std::string& name : sig.arg_names) names += (names.empty() ? "" : ", ") + name;
  tl::detail::throw_error(tl::detail::str_cat(
      module_->type_name(), ".forward read input ", i, ", but forward_signature() declares ", sig.arg_names.size(),
      " input(s) (", names, "); a module taking more inputs declares them by overriding forward_signature()"));
}

}  // namespace tl::nn
