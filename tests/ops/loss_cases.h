// tests/ops/loss_cases.h — PyTorch 1.13 cases of an op, as the generators write them (gen_loss_cases.py:
// data/loss_cases.json, gen_index_cases.py: data/index_cases.json, gen_sort_cases.py: data/sort_cases.json):
// each names an op, its inputs and arguments, and PyTorch's results; and the one loop that checks the loss
// cases (test_loss.cpp, test_softmax.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace tl::testing {

struct OpCase {
  std::string name;
  std::string op;                        ///< the op's name: "_softmax", "nll_loss_forward", ...
  std::map<std::string, Tensor> inputs;  ///< by schema argument name; an undefined Tensor for None
  std::map<std::string, double> numbers; ///< the non-tensor arguments ("dim", "reduction", ...; "inf" as a string)
  std::map<std::string, std::vector<int64_t>> lists;  ///< the int-list arguments ("dim": [0, 2])
  std::string dtype;                     ///< the "dtype" argument (softmax, cumsum, ...), or empty
  bool ties = false;                     ///< the inputs have ties where PyTorch's indices are unspecified
  TensorList expected;
  std::map<std::string, Tensor> grads;  ///< torch.autograd's gradients of (result * inputs["weight"]).sum()
  std::map<std::string, std::string> strings;  ///< the str arguments, written {"str": ...} ("equation")
};

/// Every case of tests/ops/data/<file> (loaded once per file; throws when it is missing: run from the
/// project root).
const std::vector<OpCase>& op_cases(const std::string& file);

/// Every case of loss_cases.json.
const std::vector<OpCase>& loss_cases();
/// Runs the case's op through its public wrapper in ops/ops.h.
TensorList run_loss_case(const OpCase& c);
/// The float64 tolerance for float64 results, 1e-5 relative for float32 ones.
double loss_rtol(const Tensor& t);
/// Runs every case whose op is (softmax == true) or is not (false) of the softmax family and checks its
/// results against PyTorch's; returns how many ran.
int check_loss_cases(bool softmax);

}  // namespace tl::testing
