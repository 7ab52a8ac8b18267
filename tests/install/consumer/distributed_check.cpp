// tests/install/consumer/distributed_check.cpp — training across processes from the installed package: a group of
// one over tcp:// on a free port, an all_reduce through Gloo.
#include <cstdio>
#include <string>
#include <torchless/distributed.h>
#include <torchless/torchless.h>

int main() {
  namespace dist = tl::distributed;
  const auto port = dist::free_port("127.0.0.1");
  dist::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:" + std::to_string(port), .world_size = 1,
                                    .rank = 0});
  tl::Tensor x = tl::ones({3});
  dist::all_reduce(x, dist::ReduceOp::AVG);
  std::printf("all_reduce over %lld rank: %g\n", static_cast<long long>(dist::get_world_size()), x.sum().item<double>());
  dist::destroy_process_group();
}
