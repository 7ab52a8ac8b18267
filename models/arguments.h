// models/arguments.h — the argument checks torchvision's classification models share, worded once. A model's
// constructor runs them before it draws any weight, so a refused call leaves the default generator as it was.
#pragma once

#include <cstdint>
#include <string_view>

namespace tl::models {

/// Throws tl::Error naming `model` and the value unless num_classes >= 0. (torchvision builds a head of 0
/// classes; a negative count fails in nn.Linear, after every other weight was drawn.)
void check_num_classes(std::string_view model, int64_t num_classes);

/// Throws tl::Error naming `model`, `argument` and the values unless every block's drop probability lies in
/// [0, 1]: block i of `blocks` draws with stochastic_depth_prob * i / `denominator` (EfficientNet divides by the
/// block count, ConvNeXt, Swin and MaxViT by one less). torchvision builds such a model and raises at every
/// forward ("drop probability has to be between 0 and 1"), eval mode included.
void check_stochastic_depth_prob(std::string_view model, double stochastic_depth_prob, int64_t blocks,
                                 int64_t denominator);

/// Throws tl::Error with Python's TypeError text when `given`: a builder that passes `argument` to `function`
/// itself (efficientnet_b0's dropout, swin_t's stochastic_depth_prob) refuses it as a keyword argument. Python
/// words it "f() got multiple values for argument 'x'" when `positional` (the builder passed it by position), else
/// "module.f() got multiple values for keyword argument 'x'": `function` is written as Python prints it.
void refuse_passed_argument(bool given, std::string_view function, std::string_view argument, bool positional = false);

}  // namespace tl::models
