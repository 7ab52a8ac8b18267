// examples/quickstart.cpp — docs/deployment.md's first program, built out of tree against the installed copy.
#include <iostream>
#include <torchless/torchless.h>

int main() {
  tl::manual_seed(0);
  tl::Tensor a = tl::rand({2, 3});
  tl::Tensor b = tl::ones({3});
  std::cout << (a + b).sum(/*dims=*/{1}) << "\n";
  std::cout << tl::matmul(a, a.t()) << "\n";
}
