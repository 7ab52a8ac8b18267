// ao/quantization/qconfig_mapping.cpp — QConfigMapping's ordered entries and lookup, and PyTorch 1.13's default
// mapping (qconfig_mapping.py's _get_default_qconfig_mapping with is_qat=False).
#include "ao/quantization/qconfig_mapping.h"

#include <regex>

namespace tl::ao::quantization {
namespace {

template <class V>
void set_entry(QConfigMapping::Entries<V>& entries, const V& key, QConfigAny qconfig) {
  for (auto& [k, q] : entries) {
    if (k == key) {
      q = std::move(qconfig);
      return;
    }
  }
  entries.emplace_back(key, std::move(qconfig));
}

template <class V>
const QConfigAny* find_entry(const QConfigMapping::Entries<V>& entries, const V& key) {
  for (const auto& [k, q] : entries) {
    if (k == key) return &q;
  }
  return nullptr;
}

}  // namespace

QConfigMapping& QConfigMapping::set_global(QConfigAny qconfig) {
  global_qconfig_ = std::move(qconfig);
  return *this;
}

QConfigMapping& QConfigMapping::set_object_type(const std::string& object_type, QConfigAny qconfig) {
  set_entry(object_type_qconfigs_, object_type, std::move(qconfig));
  return *this;
}

QConfigMapping& QConfigMapping::set_module_name_regex(const std::string& regex, QConfigAny qconfig) {
  try {
    std::regex compiled(regex);
  } catch (const std::regex_error& e) {
    TL_CHECK(false, "QConfigMapping.set_module_name_regex: '", regex, "' is not a valid regex: ", e.what());
  }
  set_entry(module_name_regex_qconfigs_, regex, std::move(qconfig));
  return *this;
}

QConfigMapping& QConfigMapping::set_module_name(const std::string& module_name, QConfigAny qconfig) {
  set_entry(module_name_qconfigs_, module_name, std::move(qconfig));
  return *this;
}

QConfigAny QConfigMapping::object_type_qconfig(const std::string& object_type) const {
  const QConfigAny* q = find_entry(object_type_qconfigs_, object_type);
  return q != nullptr ? *q : global_qconfig_;
}

QConfigAny QConfigMapping::qconfig_for(const std::string& module_name, const std::string& object_type) const {
  // get_module_name_qconfig: the name, then each ancestor's ("" is no module name at all).
  for (std::string name = module_name; !name.empty();) {
    if (const QConfigAny* q = find_entry(module_name_qconfigs_, name)) return *q;
    const size_t dot = name.rfind('.');
    name = dot == std::string::npos ? "" : name.substr(0, dot);
  }
  for (const auto& [regex, q] : module_name_regex_qconfigs_) {
    if (std::regex_search(module_name, std::regex(regex), std::regex_constants::match_continuous)) return q;
  }
  return object_type_qconfig(object_type);
}

QConfigMapping get_default_qconfig_mapping(const std::string& backend, int version) {
  const QConfig qconfig = get_default_qconfig(backend, version);
  const QConfig transpose =
      backend == "fbgemm" || backend == "x86" ? QConfig{qconfig.activation, default_weight_observer()} : qconfig;
  const QConfig layernorm{qconfig.activation, default_placeholder_observer()};
  QConfigMapping m;
  m.set_global(qconfig).set_object_type("reshape", default_reuse_input_qconfig());
  for (const char* type : {"torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d"}) m.set_object_type(type, qconfig);
  for (const char* type : {"torch.nn.ConvTranspose1d", "torch.nn.ConvTranspose2d", "torch.nn.ConvTranspose3d"})
    m.set_object_type(type, transpose);
  m.set_object_type("torch.nn.Linear", qconfig);
  for (const char* f : {"torch.nn.functional.conv1d", "torch.nn.functional.conv2d", "torch.nn.functional.conv3d"})
    m.set_object_type(f, qconfig);
  for (const char* f : {"torch.nn.functional.conv_transpose1d", "torch.nn.functional.conv_transpose2d",
                        "torch.nn.functional.conv_transpose3d"})
    m.set_object_type(f, transpose);
  for (const char* type : {"torch.nn.functional.linear", "torch.nn.ReLU", "torch.nn.functional.relu", "torch.relu",
                           "torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d"})
    m.set_object_type(type, qconfig);
  m.set_object_type("torch.nn.functional.layer_norm", layernorm).set_object_type("torch.nn.LayerNorm", layernorm);
  // _FIXED_QPARAMS_OP_TO_OBSERVER, in its order; ops sharing an observer share one QConfig.
  const QConfig zero_to_one{default_fixed_qparams_range_0to1_observer(), default_weight_observer()};
  const QConfig neg1_to_1{default_fixed_qparams_range_neg1to1_observer(), default_weight_observer()};
  for (const char* type : {"torch.nn.Hardsigmoid", "torch.nn.functional.hardsigmoid", "hardsigmoid", "hardsigmoid_",
                           "torch.nn.Sigmoid", "torch.sigmoid", "sigmoid", "sigmoid_", "torch.nn.Softmax"})
    m.set_object_type(type, zero_to_one);
  for (const char* type : {"torch.nn.Tanh", "torch.tanh", "tanh", "tanh_"}) m.set_object_type(type, neg1_to_1);
  return m;
}

}  // namespace tl::ao::quantization
