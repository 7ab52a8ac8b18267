// models/arguments.cpp — the shared argument checks, with torchvision's and Python's wording where they have one.
#include "models/arguments.h"

#include "core/error.h"
#include "core/py_repr.h"

namespace tl::models {

void check_num_classes(std::string_view model, int64_t num_classes) {
  TL_CHECK(num_classes >= 0, model, ": num_classes must be non-negative, got ", num_classes);
}

void check_stochastic_depth_prob(std::string_view model, double stochastic_depth_prob, int64_t blocks,
                                 int64_t denominator) {
  if (blocks < 1) return;
  TL_CHECK(denominator != 0, model, ": stochastic_depth_prob * block_id / (total_stage_blocks - 1) with a single ",
           "block divides by zero (Python's ZeroDivisionError: float division by zero)");
  // Block 0 draws with 0, the last block with the largest magnitude, every other block between them.
  const double last = stochastic_depth_prob * static_cast<double>(blocks - 1) / static_cast<double>(denominator);
  TL_CHECK(last >= 0.0 && last <= 1.0, model, ": stochastic_depth_prob=", py_float(stochastic_depth_prob),
           " gives block ", blocks - 1, " of ", blocks, " a drop probability of ", py_float(last),
           "; drop probability has to be between 0 and 1");
}

void refuse_passed_argument(bool given, std::string_view function, std::string_view argument, bool positional) {
  TL_CHECK(!given, function, "() got multiple values for ", positional ? "argument '" : "keyword argument '", argument,
           "'");
}

}  // namespace tl::models
