// models/registry.cpp — the name → builder table behind get_model and list_models.
#include "models/registry.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "core/error.h"
#include "models/alexnet.h"
#include "models/convnext.h"
#include "models/densenet.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/inception.h"
#include "models/maxvit.h"
#include "models/mnasnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/resnet.h"
#include "models/shufflenet.h"
#include "models/squeezenet.h"
#include "models/swin_transformer.h"
#include "models/vgg.h"
#include "models/vision_transformer.h"

namespace tl::models {
namespace {

using Builder = std::function<std::shared_ptr<nn::Module>(const ModelConfig&)>;

/// A builder taking its family's options struct, called with the config's fields set and the rest at defaults.
template <typename Model, typename Options>
Builder builder(std::shared_ptr<Model> (*build)(const Options&)) {
  return [build](const ModelConfig& config) -> std::shared_ptr<nn::Module> {
    Options options;
    options.num_classes = config.num_classes;
    return build(options);
  };
}

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table{
      {"alexnet", builder(alexnet)},
      {"convnext_base", builder(convnext_base)},
      {"convnext_large", builder(convnext_large)},
      {"convnext_small", builder(convnext_small)},
      {"convnext_tiny", builder(convnext_tiny)},
      {"densenet121", builder(densenet121)},
      {"densenet161", builder(densenet161)},
      {"densenet169", builder(densenet169)},
      {"densenet201", builder(densenet201)},
      {"efficientnet_b0", builder(efficientnet_b0)},
      {"efficientnet_b1", builder(efficientnet_b1)},
      {"efficientnet_b2", builder(efficientnet_b2)},
      {"efficientnet_b3", builder(efficientnet_b3)},
      {"efficientnet_b4", builder(efficientnet_b4)},
      {"efficientnet_b5", builder(efficientnet_b5)},
      {"efficientnet_b6", builder(efficientnet_b6)},
      {"efficientnet_b7", builder(efficientnet_b7)},
      {"efficientnet_v2_l", builder(efficientnet_v2_l)},
      {"efficientnet_v2_m", builder(efficientnet_v2_m)},
      {"efficientnet_v2_s", builder(efficientnet_v2_s)},
      {"googlenet", builder(googlenet)},
      {"inception_v3", builder(inception_v3)},
      {"maxvit_t", builder(maxvit_t)},
      {"mnasnet0_5", builder(mnasnet0_5)},
      {"mnasnet0_75", builder(mnasnet0_75)},
      {"mnasnet1_0", builder(mnasnet1_0)},
      {"mnasnet1_3", builder(mnasnet1_3)},
      {"mobilenet_v2", builder(mobilenet_v2)},
      {"mobilenet_v3_large", builder(mobilenet_v3_large)},
      {"mobilenet_v3_small", builder(mobilenet_v3_small)},
      {"regnet_x_16gf", builder(regnet_x_16gf)},
      {"regnet_x_1_6gf", builder(regnet_x_1_6gf)},
      {"regnet_x_32gf", builder(regnet_x_32gf)},
      {"regnet_x_3_2gf", builder(regnet_x_3_2gf)},
      {"regnet_x_400mf", builder(regnet_x_400mf)},
      {"regnet_x_800mf", builder(regnet_x_800mf)},
      {"regnet_x_8gf", builder(regnet_x_8gf)},
      {"regnet_y_128gf", builder(regnet_y_128gf)},
      {"regnet_y_16gf", builder(regnet_y_16gf)},
      {"regnet_y_1_6gf", builder(regnet_y_1_6gf)},
      {"regnet_y_32gf", builder(regnet_y_32gf)},
      {"regnet_y_3_2gf", builder(regnet_y_3_2gf)},
      {"regnet_y_400mf", builder(regnet_y_400mf)},
      {"regnet_y_800mf", builder(regnet_y_800mf)},
      {"regnet_y_8gf", builder(regnet_y_8gf)},
      {"resnet101", builder(resnet101)},
      {"resnet152", builder(resnet152)},
      {"resnet18", builder(resnet18)},
      {"resnet34", builder(resnet34)},
      {"resnet50", builder(resnet50)},
      {"resnext101_32x8d", builder(resnext101_32x8d)},
      {"resnext101_64x4d", builder(resnext101_64x4d)},
      {"resnext50_32x4d", builder(resnext50_32x4d)},
      {"shufflenet_v2_x0_5", builder(shufflenet_v2_x0_5)},
      {"shufflenet_v2_x1_0", builder(shufflenet_v2_x1_0)},
      {"shufflenet_v2_x1_5", builder(shufflenet_v2_x1_5)},
      {"shufflenet_v2_x2_0", builder(shufflenet_v2_x2_0)},
      {"squeezenet1_0", builder(squeezenet1_0)},
      {"squeezenet1_1", builder(squeezenet1_1)},
      {"swin_b", builder(swin_b)},
      {"swin_s", builder(swin_s)},
      {"swin_t", builder(swin_t)},
      {"swin_v2_b", builder(swin_v2_b)},
      {"swin_v2_s", builder(swin_v2_s)},
      {"swin_v2_t", builder(swin_v2_t)},
      {"vgg11", builder(vgg11)},
      {"vgg11_bn", builder(vgg11_bn)},
      {"vgg13", builder(vgg13)},
      {"vgg13_bn", builder(vgg13_bn)},
      {"vgg16", builder(vgg16)},
      {"vgg16_bn", builder(vgg16_bn)},
      {"vgg19", builder(vgg19)},
      {"vgg19_bn", builder(vgg19_bn)},
      {"vit_b_16", builder(vit_b_16)},
      {"vit_b_32", builder(vit_b_32)},
      {"vit_h_14", builder(vit_h_14)},
      {"vit_l_16", builder(vit_l_16)},
      {"vit_l_32", builder(vit_l_32)},
      {"wide_resnet101_2", builder(wide_resnet101_2)},
      {"wide_resnet50_2", builder(wide_resnet50_2)},
  };
  return table;
}

}  // namespace

std::vector<std::string> list_models() {
  std::vector<std::string> names;
  for (const auto& entry : builders()) names.push_back(entry.first);
  return names;
}

std::shared_ptr<nn::Module> get_model(const std::string& name, const ModelConfig& config) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto found = builders().find(lower);
  TL_CHECK(found != builders().end(), "Unknown model ", lower);
  return found->second(config);
}

}  // namespace tl::models
