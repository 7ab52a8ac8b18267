// tests/distributed/worker.cpp — the program every rank of the distributed suite runs: `dist_worker SCENARIO DIR`.
// A scenario checks its results itself (a wrong value exits 1 with a message on stderr); the error scenarios
// write the tl::Error they expect to DIR/rank<R>.txt, which the suite reads. Expected values are formulas of the
// ranks (rank r holds r * 10 + i), not outputs of the code under test.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "distributed/ddp.h"
#include "distributed/distributed.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/distributed/ddp_models.h"
#include "tests/distributed/worker.h"

namespace dist = tl::distributed;
using namespace std::chrono_literals;

namespace {

std::vector<double> values(const tl::Tensor& t) {
  tl::Tensor d = t.to(tl::kDouble).contiguous();
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("check failed: " + what);
}

void expect_values(const tl::Tensor& t, const std::vector<double>& want, const std::string& what) {
  const std::vector<double> got = values(t);
  std::string text;
  for (double v : got) text += std::to_string(v) + " ";
  expect(got == want, what + " gave " + text);
}

/// rank * 10 + [0, n) as `dtype`.
tl::Tensor ranked(int64_t n, tl::DType dtype) {
  return tl::arange(0, n, 1, tl::kDouble).add(tl::scalar_tensor(dist::get_rank() * 10, tl::kDouble)).to(dtype);
}

void collectives() {
  dist::init_process_group("gloo", {.timeout = 20s});
  const int64_t rank = dist::get_rank(), size = dist::get_world_size();
  double rank_sum = 0, rank_product = 1;
  for (int64_t r = 0; r < size; ++r) rank_sum += r * 10;
  for (const tl::DType dtype : {tl::kFloat, tl::kDouble, tl::kLong, tl::kInt, tl::kByte}) {
    tl::Tensor x = ranked(4, dtype);
    dist::all_reduce(x);
    std::vector<double> want;
    for (int i = 0; i < 4; ++i) want.push_back(static_cast<double>(size * i) + rank_sum);
    expect_values(x, want, "all_reduce SUM");
  }
  tl::Tensor avg = ranked(3, tl::kFloat);
  dist::all_reduce(avg, dist::ReduceOp::AVG);
  expect_values(avg, {rank_sum / size, rank_sum / size + 1, rank_sum / size + 2}, "all_reduce AVG");
  tl::Tensor mx = ranked(2, tl::kDouble), mn = ranked(2, tl::kLong), prod = tl::full({2}, rank + 2, tl::kLong);
  dist::all_reduce(mx, dist::ReduceOp::MAX);
  dist::all_reduce(mn, dist::ReduceOp::MIN);
  dist::all_reduce(prod, dist::ReduceOp::PRODUCT);
  for (int64_t r = 0; r < size; ++r) rank_product *= static_cast<double>(r + 2);
  expect_values(mx, {(size - 1) * 10.0, (size - 1) * 10.0 + 1}, "all_reduce MAX");
  expect_values(mn, {0, 1}, "all_reduce MIN");
  expect_values(prod, {rank_product, rank_product}, "all_reduce PRODUCT");

  tl::Tensor b = ranked(5, tl::kFloat);
  dist::broadcast(b, size - 1);
  expect_values(b, values(tl::arange(0, 5, 1, tl::kDouble).add(tl::scalar_tensor((size - 1) * 10, tl::kDouble))),
                "broadcast from the last rank");

  std::vector<tl::Tensor> gathered;
  for (int64_t r = 0; r < size; ++r) gathered.push_back(tl::zeros({2, 2}, tl::kLong));
  dist::all_gather(gathered, ranked(4, tl::kLong).reshape({2, 2}));
  for (int64_t r = 0; r < size; ++r)
    expect_values(gathered[static_cast<size_t>(r)], {r * 10.0, r * 10.0 + 1, r * 10.0 + 2, r * 10.0 + 3},
                  "all_gather slot " + std::to_string(r));

  // input_list[j] on rank r holds r * 10 + j * 100 + [0, 3): rank j gets the sum over r.
  std::vector<tl::Tensor> inputs;
  for (int64_t j = 0; j < size; ++j) inputs.push_back(ranked(3, tl::kFloat).add(tl::scalar_tensor(j * 100, tl::kFloat)));
  tl::Tensor scattered = tl::zeros({3});
  dist::reduce_scatter(scattered, inputs);
  const double base = rank_sum + static_cast<double>(size * rank * 100);
  expect_values(scattered, {base, base + size, base + 2.0 * size}, "reduce_scatter SUM");

  // Point to point around the ring, posted both ways before waiting.
  tl::Tensor out = ranked(3, tl::kDouble), in = tl::zeros({3}, tl::kDouble);
  auto sent = dist::isend(out, (rank + 1) % size, nullptr, 7);
  auto received = dist::irecv(in, (rank + size - 1) % size, nullptr, 7);
  sent->wait();
  received->wait();
  const double from = ((rank + size - 1) % size) * 10.0;
  expect_values(in, {from, from + 1, from + 2}, "isend/irecv around the ring");

  // Async work: issued together, waited in any order; the tensor's version moves when the data arrives.
  tl::Tensor a1 = ranked(2, tl::kFloat), a2 = ranked(2, tl::kFloat);
  const int64_t version = a1._version();
  auto w1 = dist::all_reduce(a1, dist::ReduceOp::SUM, nullptr, true);
  auto w2 = dist::all_reduce(a2, dist::ReduceOp::MAX, nullptr, true);
  expect(w2->wait() && w1->wait() && w1->is_completed() && w1->is_success(), "async work completes");
  expect(a1._version() > version, "all_reduce bumps the version counter");
  expect_values(a2, {(size - 1) * 10.0, (size - 1) * 10.0 + 1}, "async all_reduce MAX");
  dist::barrier();

  // A group of the even ranks; the others are not members.
  std::vector<int64_t> evens;
  for (int64_t r = 0; r < size; r += 2) evens.push_back(r);
  auto group = dist::new_group(evens);
  tl::Tensor g = tl::full({1}, rank + 1.0);
  dist::all_reduce(g, dist::ReduceOp::SUM, group);
  double even_sum = 0;
  for (int64_t r : evens) even_sum += r + 1.0;
  expect_values(g, {rank % 2 == 0 ? even_sum : rank + 1.0}, "all_reduce on new_group(evens)");
  expect(dist::get_rank(group) == (rank % 2 == 0 ? rank / 2 : -1), "get_rank(group)");
  expect(dist::get_world_size(group) == (rank % 2 == 0 ? static_cast<int64_t>(evens.size()) : -1),
         "get_world_size(group)");
  dist::barrier();
  dist::destroy_process_group();
  expect(!dist::is_initialized(), "destroy_process_group leaves no group");
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  return text;
}

/// Runs `body`, which must throw tl::Error; writes its message to `path` (a directory: to path/rank<RANK>.txt).
int expect_error(const std::string& path, const std::function<void()>& body) {
  const char* rank = std::getenv("RANK");
  try {
    body();
  } catch (const tl::Error& e) {
    const bool file = path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0;
    std::ofstream(file ? path : path + "/rank" + (rank ? rank : "?") + ".txt") << e.what();
    return 0;
  }
  std::cerr << "rank " << (rank ? rank : "?") << ": no tl::Error was thrown\n";
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: dist_worker SCENARIO DIR\n";
    return 2;
  }
  const std::string scenario = argv[1], dir = argv[2];
  try {
    if (scenario.rfind("ddp_", 0) == 0) {
      return ddp_scenario(scenario, dir);
    } else if (scenario == "collectives") {
      collectives();
    } else if (scenario == "file_init") {
      dist::init_process_group("gloo", {.init_method = "file://" + dir + "/store", .timeout = 20s});
      tl::Tensor x = tl::full({2}, dist::get_rank() + 1.0);
      dist::all_reduce(x);
      expect_values(x, {3, 3}, "all_reduce after file:// rendezvous");
      dist::destroy_process_group();
    } else if (scenario == "redis_init") {  // DIR/init_method.txt names the server and the job's prefix
      dist::init_process_group("gloo", {.init_method = read_text(dir + "/init_method.txt"), .timeout = 20s});
      tl::Tensor x = tl::full({2}, dist::get_rank() + 1.0);
      dist::all_reduce(x);
      expect_values(x, {3, 3}, "all_reduce after redis:// rendezvous");
      auto group = dist::new_group({1, 0});
      dist::broadcast(x, 1, group);
      dist::destroy_process_group();
    } else if (scenario == "redis_reused") {  // the prefix a finished job used
      return expect_error(dir, [&] {
        dist::init_process_group("gloo", {.init_method = read_text(dir + "/init_method.txt"), .timeout = 5s});
      });
    } else if (scenario == "never_joins") {  // one process told there are two
      return expect_error(dir, [] { dist::init_process_group("gloo", {.timeout = 1s, .world_size = 2}); });
    } else if (scenario == "world_size_mismatch") {  // rank 1 believes in three ranks
      return expect_error(dir, [] {
        dist::init_process_group("gloo", {.timeout = 5s, .world_size = std::atoi(std::getenv("RANK")) == 1 ? 3 : 2});
      });
    } else if (scenario == "peer_exits") {  // rank 1 leaves after the rendezvous; rank 0's all_reduce must fail
      dist::init_process_group("gloo", {.timeout = 2s});
      if (dist::get_rank() == 1) std::_Exit(0);
      std::this_thread::sleep_for(200ms);
      return expect_error(dir, [] {
        tl::Tensor x = tl::ones({1000});
        dist::all_reduce(x);
      });
    } else if (scenario == "p2p_size_mismatch") {  // rank 0 sends 4 floats, rank 1 receives 8; then both go on
      dist::init_process_group("gloo", {.timeout = 5s});
      const int64_t rank = dist::get_rank();
      const int first = expect_error(dir, [&] {
        if (rank == 0) {
          dist::send(tl::ones({4}), 1);
        } else {
          dist::recv(tl::zeros({8}), 0);
        }
      });
      if (first != 0) return first;
      tl::Tensor x = tl::full({3}, rank + 1.0);  // the group still works, and the same tag too
      if (rank == 0) {
        dist::send(x, 1);
      } else {
        dist::recv(x, 0);
      }
      expect_values(x, {1, 1, 1}, "send/recv after a refused one");
      // Two transfers in flight with one tag, of different sizes: they meet in posting order.
      std::vector<tl::Tensor> parts = {tl::full({4}, rank + 1.0), tl::full({2}, rank + 5.0)};
      std::vector<std::shared_ptr<dist::Work>> works;
      for (const tl::Tensor& part : parts) works.push_back(rank == 0 ? dist::isend(part, 1, nullptr, 3)
                                                                     : dist::irecv(part, 0, nullptr, 3));
      for (const auto& w : works) w->wait();
      expect_values(parts[0], {1, 1, 1, 1}, "the first of two sends with one tag");
      expect_values(parts[1], {5, 5}, "the second of two sends with one tag");
      dist::destroy_process_group();
    } else if (scenario == "peer_killed") {  // rank 1 is SIGKILLed while the ranks all-reduce in a loop
      dist::init_process_group("gloo", {.timeout = 10s});
      if (dist::get_rank() == 1) {
        std::thread([] {
          std::this_thread::sleep_for(300ms);
          ::raise(SIGKILL);
        }).detach();
      } else {
        std::signal(SIGTERM, SIG_IGN);  // the launcher's, when rank 1 dies: rank 0 still reports its error
      }
      return expect_error(dir, [] {
        tl::Tensor x = tl::ones({1 << 18});
        for (;;) {
          const auto start = std::chrono::steady_clock::now();  // of the call that fails, not of the loop
          try {
            dist::all_reduce(x);
          } catch (const tl::Error& e) {
            const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            throw tl::Error(std::string(e.what()) + " | failed after " + std::to_string(seconds) + " s");
          }
        }
      });
    } else if (scenario == "peer_silent") {  // rank 1 never calls the collective; rank 0 times out
      dist::init_process_group("gloo", {.timeout = 1s});
      if (dist::get_rank() == 1) {
        std::this_thread::sleep_for(3s);
        return 0;
      }
      return expect_error(dir, [] {
        tl::Tensor x = tl::ones({4});
        dist::all_reduce(x);
      });
    } else if (scenario == "size_mismatch") {  // rank 1 reduces more elements, of another dtype; then calls differ
      dist::init_process_group("gloo", {.timeout = 5s});
      const int64_t rank = dist::get_rank();
      const int first = expect_error(dir, [&] {
        tl::Tensor x = rank == 0 ? tl::ones({4}) : tl::ones({8}, tl::kDouble);
        dist::all_reduce(x);
      });
      if (first != 0) return first;
      if (rank == 1) return expect_error(dir + "/rank1_next.txt", [] { dist::barrier(); });
      return expect_error(dir + "/rank0_next.txt", [] {
        tl::Tensor x = tl::ones({2});
        dist::broadcast(x, 0);
      });
    } else if (scenario == "profile") {  // each rank writes its trace as rank<R>.pt.trace.json: an all_reduce, two
      // DDP steps of the three-bucket MLP (whose buckets reduce on the worker thread while backward goes on), then
      // rank 0 sends 5 elements to rank 1
      dist::init_process_group("gloo", {.timeout = 20s});
      tl::manual_seed(0);
      tl::nn::parallel::DistributedDataParallel ddp(tl::testing::ddp_mlp(), {.bucket_cap_mb = 0.01});
      const tl::Tensor input = tl::randn({8, 64});
      tl::profiler::Profile prof;
      {
        auto running = prof.start();
        tl::Tensor x = tl::ones({8});
        dist::all_reduce(x);
        for (int step = 0; step < 2; ++step) ddp(input).sum().backward();
        tl::Tensor message = tl::ones({5});
        if (dist::get_rank() == 0) dist::send(message, 1);
        else dist::recv(message, 0);
      }
      prof.export_chrome_trace(dir + "/rank" + std::to_string(dist::get_rank()) + ".pt.trace.json");
      dist::destroy_process_group();
    } else if (scenario == "environment") {  // what tl-run set
      std::ofstream out(dir + "/env" + std::getenv("RANK") + ".txt");
      for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                               "OMP_NUM_THREADS"})
        out << name << "=" << (std::getenv(name) ? std::getenv(name) : "") << "\n";
    } else if (scenario == "fail_rank1") {  // rank 1 fails; rank 0 would run long
      if (std::atoi(std::getenv("RANK")) == 1) return 5;
      std::this_thread::sleep_for(30s);
    } else {
      std::cerr << "dist_worker: unknown scenario " << scenario << "\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "rank " << (std::getenv("RANK") ? std::getenv("RANK") : "?") << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
