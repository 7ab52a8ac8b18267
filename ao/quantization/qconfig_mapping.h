// ao/quantization/qconfig_mapping.h — QConfigMapping, PyTorch 1.13's torch.ao.quantization.QConfigMapping:
// which QConfig each module or op of a model gets, and get_default_qconfig_mapping(backend).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ao/quantization/qconfig.h"

namespace tl::ao::quantization {

/// A QConfig, or none (std::nullopt, PyTorch's None): that module or op is left in floating point.
using QConfigAny = std::optional<QConfig>;

/// Object types are named as a PyTorch script names them: module classes "torch.nn.Conv2d", functions
/// "torch.nn.functional.conv2d", "torch.relu", "operator.add", Tensor methods by name ("reshape"). Each
/// setter keeps PyTorch's OrderedDict order: setting a key again replaces its qconfig in place.
class QConfigMapping {
 public:
  template <class V>
  using Entries = std::vector<std::pair<V, QConfigAny>>;

  QConfigMapping& set_global(QConfigAny qconfig);
  QConfigMapping& set_object_type(const std::string& object_type, QConfigAny qconfig);
  /// `regex` is matched at the start of the module's dotted name (Python's re.match). Throws tl::Error,
  /// changing nothing, for a regex that does not compile.
  QConfigMapping& set_module_name_regex(const std::string& regex, QConfigAny qconfig);
  QConfigMapping& set_module_name(const std::string& module_name, QConfigAny qconfig);

  const QConfigAny& global_qconfig() const { return global_qconfig_; }
  const Entries<std::string>& object_type_qconfigs() const { return object_type_qconfigs_; }
  const Entries<std::string>& module_name_regex_qconfigs() const { return module_name_regex_qconfigs_; }
  const Entries<std::string>& module_name_qconfigs() const { return module_name_qconfigs_; }

  /// The qconfig of the module at dotted `module_name` whose type is `object_type`, by PyTorch's priority:
  /// the module's name or its nearest named ancestor, else the first matching regex, else its type, else
  /// the global one.
  QConfigAny qconfig_for(const std::string& module_name, const std::string& object_type) const;
  /// The qconfig of `object_type` alone, else the global one.
  QConfigAny object_type_qconfig(const std::string& object_type) const;

 private:
  QConfigAny global_qconfig_;
  Entries<std::string> object_type_qconfigs_;
  Entries<std::string> module_name_regex_qconfigs_;
  Entries<std::string> module_name_qconfigs_;
};

/// get_default_qconfig_mapping(backend, version=0): get_default_qconfig(backend) as the global qconfig and
/// for convs, linear, relu and batch norms; for transposed convs per-tensor weights on "fbgemm" and "x86";
/// float weights for layer norm; the input's observer for "reshape"; fixed qparams for sigmoid, tanh,
/// softmax and hardsigmoid. Object types in PyTorch's order.
QConfigMapping get_default_qconfig_mapping(const std::string& backend = "fbgemm", int version = 0);

}  // namespace tl::ao::quantization
