// bench/profiler_overhead.cpp — what recording op events costs: ResNet18 (eval, batch 1) with
// and without a running Profile (op events alone, with_stack alone, everything on), interleaved in
// the same run, medians of N runs. The profiler's
// own time (inside its hooks) and its post-processing at stop() are reported apart from the model's.
// Then a training step (ResNet18 train, batch 2, 3x64x64, SGD with momentum) with and without a
// profile, and what its backward and optimizer scopes cost when no profile runs.
//
//   profiler_overhead [--runs 40] [--warmup 5] [--threads 2]
#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "models/resnet.h"
#include "nn/functional.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "profiler/profile.h"

namespace {

namespace profiler = tl::profiler;
using Clock = std::chrono::steady_clock;

struct Options {
  int runs = 40, warmup = 5, threads = 2;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    TL_CHECK(i + 1 < argc, "", a, " needs a value (usage: --runs N --warmup N --threads N)");
    const std::string v = argv[++i];
    if (a == "--runs") o.runs = tl::bench::parse_number(a, v, 1);
    else if (a == "--warmup") o.warmup = tl::bench::parse_number(a, v, 0);
    else if (a == "--threads") o.threads = tl::bench::parse_number(a, v, 1);
    else TL_CHECK(false, "unknown option ", a, " (usage: --runs N --warmup N --threads N)");
  }
  return o;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The calling thread's CPU time: unlike wall time, other processes' load does not inflate it, and
// with --threads 1 it is the whole forward.
double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Samples {
  std::vector<double> forward_ms, cpu_ms, hooks_ms, stop_ms, events;
};

// One profiled forward: the forward alone is timed; stop() (building the event tree) apart.
std::unique_ptr<profiler::Profile> profiled_run(tl::nn::Module& model, const tl::Tensor& input,
                                                const profiler::ProfileOptions& options, Samples& s) {
  auto prof = std::make_unique<profiler::Profile>(options);
  {
    auto running = prof->start();
    const auto t0 = Clock::now();
    const double c0 = thread_cpu_ms();
    model(input);
    s.cpu_ms.push_back(thread_cpu_ms() - c0);
    s.forward_ms.push_back(ms_since(t0));
    const auto t1 = Clock::now();
    prof->stop();
    s.stop_ms.push_back(ms_since(t1));
  }
  s.hooks_ms.push_back(static_cast<double>(prof->profiler_overhead_ns()) / 1e6);
  s.events.push_back(static_cast<double>(prof->events().size()));
  return prof;
}

// Added time as the median of per-iteration ratios: each profiled forward is compared with the
// unprofiled one of the same iteration, which cancels slow drift in the machine's load.
double added_percent(const std::vector<double>& plain, const std::vector<double>& profiled) {
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(plain.size(), profiled.size()); ++i) ratios.push_back(profiled[i] / plain[i]);
  return 100.0 * (median(ratios) - 1.0);
}

std::string spread(const std::vector<double>& v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%8.3f ms [%7.3f, %7.3f]", median(v), *std::min_element(v.begin(), v.end()),
                *std::max_element(v.begin(), v.end()));
  return buf;
}

void report(const char* label, const Samples& plain, const Samples& s) {
  const double hooks = median(s.hooks_ms);
  std::printf("%-38s %s  %+6.2f%%  cpu %+6.2f%%   hooks %6.3f ms (%5.2f%%)   stop() %6.3f ms   %4.0f events\n",
              label, spread(s.forward_ms).c_str(), added_percent(plain.forward_ms, s.forward_ms),
              added_percent(plain.cpu_ms, s.cpu_ms), hooks, 100.0 * hooks / median(plain.forward_ms),
              median(s.stop_ms), median(s.events));
}

// Nanoseconds per unobserved scope, as the engine opens them (a name built only when observed).
double unobserved_scope_ns() {
  constexpr int kScopes = 2'000'000;
  const auto t0 = Clock::now();
  for (int i = 0; i < kScopes; ++i) {
    tl::RecordFunction scope([] { return std::string("never built"); }, tl::RecordScope::Function);
  }
  return ms_since(t0) * 1e6 / kScopes;
}

// A training step with and without a running Profile, interleaved; then the scopes a step opens
// (backward steps, nodes, optimizer) times what one costs with no profile running.
void training(const Options& o) {
  std::printf("\ntraining step: ResNet18, train, batch 2, 3x64x64, cross entropy, SGD(lr 0.1, momentum 0.9)\n");
  tl::AutoGradMode grad_mode(true);  // main measures inference under NoGradGuard
  tl::manual_seed(0);
  auto model = tl::models::resnet18();
  model->train();
  const tl::Tensor x = tl::randn({2, 3, 64, 64});
  const tl::Tensor target = tl::from_vector<int64_t>({1, 2}, {2});
  tl::optim::SGD sgd(model->parameters(), {.lr = 0.1, .momentum = 0.9});
  auto step = [&] {
    sgd.zero_grad();
    tl::nn::functional::cross_entropy((*model)(x), target).backward();
    sgd.step();
  };
  std::vector<double> plain, profiled;
  int64_t scopes = 0;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    for (int k = 0; k < 2; ++k) {
      if ((i + k) % 2 == 0) {
        const auto t0 = Clock::now();
        step();
        if (i >= o.warmup) plain.push_back(ms_since(t0));
        continue;
      }
      profiler::Profile prof;
      double ms = 0;
      {
        auto running = prof.start();
        const auto t0 = Clock::now();
        step();
        ms = ms_since(t0);
      }
      if (i >= o.warmup) profiled.push_back(ms);
      scopes = 0;
      for (const profiler::FunctionEvent& e : prof.events())
        scopes += e.kind == profiler::EventKind::Function || e.kind == profiler::EventKind::UserAnnotation;
    }
  }
  std::printf("no profiler                            %s\n", spread(plain).c_str());
  std::printf("Profile() recording op events          %s  %+6.2f%%\n", spread(profiled).c_str(),
              added_percent(plain, profiled));
  const double scope_ns = unobserved_scope_ns();
  const double step_us = scopes * scope_ns / 1e3;
  std::printf("no profile running: %lld scopes per step (evaluate_function, node, Optimizer.*) at %.2f ns each "
              "= %.2f us per step, %.4f%% of the step\n",
              static_cast<long long>(scopes), scope_ns, step_us, 100.0 * step_us / 1e3 / median(plain));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    tl::set_num_threads(o.threads);
    tl::bench::print_header("profiler overhead: ResNet18, eval, batch 1, 3x224x224");
    tl::manual_seed(0);
    auto model = tl::models::resnet18();
    model->eval();
    tl::NoGradGuard no_grad;  // inference, as the PyTorch partner measures it
    const tl::Tensor input = tl::randn({1, 3, 224, 224});

    const profiler::ProfileOptions ops_only{};
    const profiler::ProfileOptions stacks{.with_stack = true};
    const profiler::ProfileOptions everything{
        .record_shapes = true, .profile_memory = true, .with_stack = true, .with_flops = true};
    Samples plain, recorded, stacked, full;
    for (int i = 0; i < o.warmup; ++i) {
      (*model)(input);
      profiled_run(*model, input, ops_only, recorded);
      profiled_run(*model, input, stacks, stacked);
      profiled_run(*model, input, everything, full);
    }
    recorded = stacked = full = Samples{};
    std::unique_ptr<profiler::Profile> last;  // the last ops-only profile, printed below
    // Interleaved, rotating the order, so drift (frequency, other processes) hits all variants alike.
    for (int i = 0; i < o.runs; ++i) {
      for (int k = 0; k < 4; ++k) {
        switch ((i + k) % 4) {
          case 0: {
            const auto t0 = Clock::now();
            const double c0 = thread_cpu_ms();
            (*model)(input);
            plain.cpu_ms.push_back(thread_cpu_ms() - c0);
            plain.forward_ms.push_back(ms_since(t0));
            break;
          }
          case 1: profiled_run(*model, input, everything, full); break;
          case 2: profiled_run(*model, input, stacks, stacked); break;
          default: last = profiled_run(*model, input, ops_only, recorded); break;
        }
      }
    }

    std::printf("\n%d runs each, interleaved; forward time median [min, max]; %% is the median over iterations of\n"
                "the added time against the unprofiled forward of the same iteration, in wall time and in the\n"
                "calling thread's CPU time (the whole forward with --threads 1)\n", o.runs);
    std::printf("%-38s %s\n", "no profiler", spread(plain.forward_ms).c_str());
    report("Profile() recording op events", plain, recorded);
    report("Profile(with_stack)", plain, stacked);
    report("Profile(shapes, memory, stack, flops)", plain, full);
    const double added = added_percent(plain.forward_ms, recorded.forward_ms);
    std::printf("\nadded time with op events: %.2f%% (target <= 3%%: %s); the profiler's own time in its hooks: "
                "%.3f ms per forward (%.2f%%)\n",
                added, added <= 3.0 ? "met" : "NOT met", median(recorded.hooks_ms),
                100.0 * median(recorded.hooks_ms) / median(plain.forward_ms));

    const profiler::EventList& events = last->events();
    int64_t model_ns = 0;
    for (const profiler::FunctionEvent& e : events)
      if (e.cpu_parent < 0) model_ns += e.cpu_time_total_ns();
    std::printf("last profiled run: model time seen by the profiler %.3f ms (sum of top-level ops), "
                "profiler's own time in its hooks %.3f ms\n\n",
                static_cast<double>(model_ns) / 1e6, static_cast<double>(last->profiler_overhead_ns()) / 1e6);
    std::printf("%s", last->key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 10}).c_str());
    training(o);
    return 0;
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "profiler_overhead: %s\n", e.what());
    return 1;
  }
}
