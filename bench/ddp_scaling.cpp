// bench/ddp_scaling.cpp — data-parallel training of ResNet18 on this machine's cores, two ways: 2 ranks x 1 thread
// (DistributedDataParallel over Gloo, 8 images each) against 1 rank x 2 threads (16 images), global batch 16.
// Per configuration: the DDP step's median time, the same step without communication (the module called directly),
// the buckets' all-reduces alone, and the fraction of communication hidden behind backward two ways: from those
// timings, and from a profile of two more steps, where each all-reduce is its gloo:all_reduce scope on the group's
// worker thread and computation the aten ops of the training thread (tl::trace::comm_comp_overlap, HTA's measure).
//
//   ddp_scaling [--steps N] [--image-size S]      (defaults: 10 steps, 224x224)
//
// Each configuration runs as its own processes through tl::distributed::launch (tl-run's launcher), with
// OMP_NUM_THREADS set; each rank writes its trace, and the parent measures them and prints the table. The bucket
// sizes it prints feed the model curve in docs/distributed.md.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "distributed/ddp.h"
#include "distributed/distributed.h"
#include "distributed/launch.h"
#include "models/resnet.h"
#include "nn/loss.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "profiler/profile.h"
#include "trace/comm_overlap.h"
#include "trace/trace.h"

namespace dist = tl::distributed;
namespace bench = tl::bench;

namespace {

constexpr int64_t kGlobalBatch = 16;

struct Args {
  int steps = 10;
  int image_size = 224;
  std::string worker_out;  ///< set in a rank: the file rank 0 writes its results to
};

/// Where rank `rank` of a run whose rank 0 writes to `worker_out` writes its trace.
std::string trace_file(const std::string& worker_out, int64_t rank) {
  return worker_out + ".rank" + std::to_string(rank) + ".pt.trace.json";
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    TL_CHECK(i + 1 < argc && (flag == "--steps" || flag == "--image-size" || flag == "--worker"),
             "unknown flag or missing value '", flag, "' (usage: ddp_scaling [--steps N] [--image-size S])");
    const std::string value = argv[++i];
    if (flag == "--steps") a.steps = bench::parse_number(flag, value, 1);
    else if (flag == "--image-size") a.image_size = bench::parse_number(flag, value, 32);
    else a.worker_out = value;
  }
  return a;
}

/// One rank's measurements; rank 0 writes them as one line: ranks threads step compute comm buckets_bytes...
void run_rank(const Args& args) {
  dist::init_process_group("gloo");
  const int64_t world = dist::get_world_size(), local = kGlobalBatch / world;
  tl::manual_seed(0);
  auto ddp = std::make_shared<tl::nn::parallel::DistributedDataParallel>(tl::models::resnet18());
  tl::optim::SGD opt(ddp->parameters(), {.lr = 0.01, .momentum = 0.9});
  tl::nn::CrossEntropyLoss criterion;
  tl::manual_seed(1 + static_cast<uint64_t>(dist::get_rank()));
  const tl::Tensor x = tl::randn({local, 3, args.image_size, args.image_size});
  const tl::Tensor y = tl::randint(1000, {local});
  // x is (local, 3, S, S): one SGD step through DDP (gradients averaged during backward) ...
  const bench::Timing step = bench::time_runs(1, args.steps, [&] {
    opt.zero_grad();
    criterion((*ddp)(x), y).backward();
    opt.step();
  });
  // ... the same step on the wrapped module, which DDP's hooks leave alone (no collective) ...
  const bench::Timing compute = bench::time_runs(1, args.steps, [&] {
    opt.zero_grad();
    criterion((*ddp->module())(x), y).backward();
    opt.step();
  });
  // ... and the buckets' all-reduces alone, launched in bucket order as backward launches them.
  const std::vector<tl::Tensor> params = ddp->module()->parameters();
  std::vector<tl::Tensor> flats;
  std::vector<int64_t> bucket_bytes;
  for (const auto& bucket : ddp->bucket_indices()) {
    int64_t numel = 0;
    for (size_t i : bucket) numel += params[i].numel();
    flats.push_back(tl::zeros({numel}));
    bucket_bytes.push_back(numel * 4);
  }
  const bench::Timing comm = bench::time_runs(1, args.steps, [&] {
    std::vector<std::shared_ptr<dist::Work>> works;
    for (const tl::Tensor& f : flats) works.push_back(dist::all_reduce(f, dist::ReduceOp::SUM, nullptr, true));
    for (const auto& w : works) w->wait();
  });
  // Two more DDP steps, profiled: the trace shows backward and the worker thread's all-reduces side by side.
  tl::profiler::Profile prof;
  {
    auto running = prof.start();
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      criterion((*ddp)(x), y).backward();
      opt.step();
    }
  }
  prof.export_chrome_trace(trace_file(args.worker_out, dist::get_rank()));
  if (dist::get_rank() == 0) {
    std::ofstream out(args.worker_out);
    out << world << " " << tl::get_num_threads() << " " << step.median_ms << " " << step.min_ms << " " << step.max_ms
        << " " << compute.median_ms << " " << comm.median_ms;
    for (int64_t b : bucket_bytes) out << " " << b;
    out << "\n";
  }
  dist::destroy_process_group();
}

struct Result {
  int64_t ranks = 0, threads = 0;
  double step = 0, step_min = 0, step_max = 0, compute = 0, comm = 0;
  std::vector<int64_t> bucket_bytes;
  std::vector<tl::trace::CommOverlap> traced;  ///< per rank, from its trace
};

Result run_configuration(const Args& args, int64_t ranks, int64_t threads, const std::filesystem::path& dir) {
  const std::filesystem::path out = dir / ("ranks" + std::to_string(ranks) + ".txt");
  ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  const dist::LaunchResult launched = dist::launch(
      {.nproc_per_node = ranks,
       .args = {std::filesystem::read_symlink("/proc/self/exe").string(), "--steps", std::to_string(args.steps),
                "--image-size", std::to_string(args.image_size), "--worker", out.string()}});
  TL_CHECK(launched.exit_code == 0, "ddp_scaling: ", ranks, " x ", threads, ": ", launched.message);
  std::ifstream in(out);
  Result r;
  in >> r.ranks >> r.threads >> r.step >> r.step_min >> r.step_max >> r.compute >> r.comm;
  for (int64_t b; in >> b;) r.bucket_bytes.push_back(b);
  for (int64_t rank = 0; rank < ranks; ++rank)
    r.traced.push_back(tl::trace::comm_comp_overlap(tl::trace::load_trace(trace_file(out.string(), rank))));
  return r;
}

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", 100.0 * fraction);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    if (!args.worker_out.empty()) {
      run_rank(args);
      return 0;
    }
    bench::print_header("ddp_scaling: ResNet18, global batch 16, SGD, DistributedDataParallel over Gloo");
    std::printf("%d steps after one warm-up, %dx%d images; milliseconds, median [min, max]\n\n", args.steps,
                args.image_size, args.image_size);
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("ddp_scaling." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<Result> results;
    for (const auto& [ranks, threads] : {std::pair<int64_t, int64_t>{2, 1}, {1, 2}})
      results.push_back(run_configuration(args, ranks, threads, dir));
    std::filesystem::remove_all(dir);
    std::printf("%-18s %28s %10s %14s %10s %9s %20s\n", "configuration", "DDP step", "images/s", "no-comm step",
                "comm", "overlap", "traced overlap/rank");
    for (const Result& r : results) {
      // The communication the step did not hide: its excess over the step without communication.
      const double exposed = std::clamp(r.step - r.compute, 0.0, r.comm);
      const double overlap = r.comm > 0 ? 1.0 - exposed / r.comm : 1.0;
      char step[64], hidden[16] = "-";  // one rank: nothing to hide
      std::snprintf(step, sizeof step, "%.1f [%.1f, %.1f]", r.step, r.step_min, r.step_max);
      if (r.ranks > 1) std::snprintf(hidden, sizeof hidden, "%.0f%%", 100.0 * overlap);
      // The trace's measure: the share of the gloo:all_reduce time during which the training thread ran aten ops.
      std::string traced = "-";
      if (r.ranks > 1) {
        traced.clear();
        for (const tl::trace::CommOverlap& t : r.traced) {
          if (!traced.empty()) traced += ' ';
          traced += percent(t.ratio());
        }
      }
      std::printf("%2lld rank(s) x %lld thr %28s %10.1f %14.1f %10.1f %9s %20s\n", static_cast<long long>(r.ranks),
                  static_cast<long long>(r.threads), step, kGlobalBatch / (r.step / 1000.0), r.compute, r.comm,
                  hidden, traced.c_str());
    }
    std::printf("\nbuckets (MiB, in reduction order):");
    for (int64_t b : results.front().bucket_bytes) std::printf(" %.2f", static_cast<double>(b) / (1024.0 * 1024.0));
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp_scaling: %s\n", e.what());
    return 1;
  }
  return 0;
}
