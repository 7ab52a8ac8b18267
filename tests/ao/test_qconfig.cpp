// tests/ao/test_qconfig.cpp — QConfig, QConfigMapping and get_default_qconfig_mapping against PyTorch 1.13
// (tests/ao/gen_ao_cases.py): every entry of each backend's default mapping, in order, with the observers it makes.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "ao/quantization/qconfig_mapping.h"
#include "tests/ao/ao_cases.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;

// What the generator records of a fresh observer: its class, dtype and range attributes.
Json describe(const ObserverBase& o) {
  Json d{{"class", o.type_name()}, {"dtype", qdtype_name(o.dtype())}};
  if (const auto* u = dynamic_cast<const UniformQuantizationObserverBase*>(&o)) {
    d["qscheme"] = qscheme_name(u->qscheme());
    d["reduce_range"] = u->reduce_range();
    d["quant_min"] = u->quant_min();
    d["quant_max"] = u->quant_max();
  }
  if (const auto* p = dynamic_cast<const PerChannelMinMaxObserver*>(&o)) d["ch_axis"] = p->ch_axis();
  if (const auto* f = dynamic_cast<const FixedQParamsObserver*>(&o)) {
    d["qscheme"] = qscheme_name(f->qscheme());
    d["quant_min"] = f->quant_min();
    d["quant_max"] = f->quant_max();
    d["scale"] = static_cast<double>(f->buffer("scale").item<float>());
    d["zero_point"] = f->buffer("zero_point").item<int64_t>();
  }
  return d;
}

Json describe(const QConfigAny& q) {
  if (!q) return nullptr;
  return Json{{"activation", describe(*q->activation())}, {"weight", describe(*q->weight())}};
}

TEST_CASE("get_default_qconfig_mapping: each backend's global qconfig and object types as PyTorch's, in order") {
  const Json data = testing::ao_cases().at("qconfig_mappings");
  for (const std::string backend : {"fbgemm", "x86", "onednn", "qnnpack"}) {
    CAPTURE(backend);
    const QConfigMapping m = get_default_qconfig_mapping(backend);
    const Json& expected = data.at(backend);
    CHECK(describe(m.global_qconfig()) == expected.at("global"));
    REQUIRE(m.object_type_qconfigs().size() == expected.at("object_types").size());
    for (size_t i = 0; i < m.object_type_qconfigs().size(); ++i) {
      const std::string type = m.object_type_qconfigs()[i].first;
      const QConfigAny& qconfig = m.object_type_qconfigs()[i].second;
      CAPTURE(type);
      CHECK(type == expected.at("object_types")[i][0].get<std::string>());
      CHECK(describe(qconfig) == expected.at("object_types")[i][1]);
    }
  }
}

TEST_CASE("QConfigMapping: module name (or an ancestor's) before regex before object type before global") {
  const QConfig a = default_qconfig(), b = get_default_qconfig("onednn");
  QConfigMapping m;
  m.set_global(a).set_object_type("torch.nn.Linear", b).set_module_name("layer1", std::nullopt);
  m.set_module_name_regex("layer2\\.[0-9]+\\.conv", b);
  CHECK(m.qconfig_for("fc", "torch.nn.Linear")->activation()->type_name() == "HistogramObserver");
  CHECK(m.qconfig_for("conv1", "torch.nn.Conv2d")->activation()->type_name() == "MinMaxObserver");
  CHECK_FALSE(m.qconfig_for("layer1.0.conv1", "torch.nn.Conv2d").has_value());
  CHECK(m.qconfig_for("layer2.1.conv2", "torch.nn.Conv2d")->activation()->type_name() == "HistogramObserver");
  CHECK(m.qconfig_for("xlayer2.1.conv2", "torch.nn.Conv2d")->activation()->type_name() == "MinMaxObserver");
  // Setting a key again replaces its qconfig where it stands, as PyTorch's OrderedDict.
  m.set_object_type("torch.nn.Conv2d", a).set_object_type("torch.nn.Linear", std::nullopt);
  REQUIRE(m.object_type_qconfigs().size() == 2);
  CHECK(m.object_type_qconfigs()[0].first == "torch.nn.Linear");
  CHECK_FALSE(m.object_type_qconfigs()[0].second.has_value());
}

TEST_CASE("QConfigMapping and get_default_qconfig: misuse") {
  QConfigMapping m;
  CHECK_THROWS_AS(m.set_module_name_regex("layer[", default_qconfig()), Error);
  CHECK(m.module_name_regex_qconfigs().empty());
  CHECK_THROWS_WITH_AS(get_default_qconfig("onednn", 1),
                       "Version number: 1 in get_default_qconfig is not supported. Version number must be 0", Error);
  // An unknown backend falls back to default_qconfig, as PyTorch's does.
  CHECK(get_default_qconfig("mkldnn").activation()->type_name() == "MinMaxObserver");
}

}  // namespace
}  // namespace tl::ao::quantization
