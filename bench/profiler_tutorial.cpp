// bench/profiler_tutorial.cpp — the profiler tutorial's three acts on CPU with MyModule(500, 10)
// and a 500x500x500 mask: find the scope that wastes time and memory, halve its memory with a
// float32 mask, cut its time with (mask > threshold).nonzero(). Prints the tables and figures.
//
//   profiler_tutorial [--side 500] [--threads 2] [--trace DIR]
#include <cstdio>
#include <memory>
#include <string>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "models/my_module.h"
#include "profiler/profile.h"
#include "profiler/table.h"

namespace {

namespace profiler = tl::profiler;

struct Options {
  int64_t side = 500;
  int threads = 2;
  std::string trace_dir;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    TL_CHECK(i + 1 < argc, "", a, " needs a value (usage: --side N --threads N --trace DIR)");
    const std::string v = argv[++i];
    if (a == "--side") o.side = tl::bench::parse_number<int64_t>(a, v, 1);
    else if (a == "--threads") o.threads = tl::bench::parse_number(a, v, 1);
    else if (a == "--trace") o.trace_dir = v;
    else TL_CHECK(false, "unknown option ", a, " (usage: --side N --threads N --trace DIR)");
  }
  return o;
}

struct Act {
  profiler::FunctionEventAvg mask_indices;  // the MASK INDICES row
  std::string top_key;                      // the row with the most self CPU time
  double top_share = 0;                     // its share of the self CPU total
};

Act run_act(const Options& o, int number, const char* title, tl::DType mask_dtype, bool use_nonzero) {
  std::printf("\n=== Act %d: %s ===\n", number, title);
  tl::manual_seed(0);
  auto model = std::make_shared<tl::models::MyModule>(tl::models::MyModuleOptions{.use_nonzero = use_nonzero});
  const tl::models::MyModuleInputs in = tl::models::my_module_inputs(mask_dtype, o.side);
  (*model)({in.input, in.mask});  // warm-up, as the tutorial does
  profiler::Profile prof({.profile_memory = true, .with_stack = true});
  {
    auto running = prof.start();
    (*model)({in.input, in.mask});
  }
  const profiler::KeyAverages avg = prof.key_averages({.group_by_stack_n = 5});
  std::printf("%s", avg.table({.sort_by = "self_cpu_time_total", .row_limit = 5}).c_str());
  if (!o.trace_dir.empty()) {
    const std::string path = o.trace_dir + "/profiler_tutorial_act" + std::to_string(number) + ".json";
    prof.export_chrome_trace(path);
    std::printf("trace: %s\n", path.c_str());
  }
  Act act;
  act.mask_indices = prof.key_averages().at("MASK INDICES");
  const profiler::KeyAverages by_name = prof.key_averages();
  const profiler::FunctionEventAvg* top = &by_name[0];
  for (const profiler::FunctionEventAvg& row : by_name)
    if (row.self_cpu_time_total_ns > top->self_cpu_time_total_ns) top = &row;
  act.top_key = top->key;
  act.top_share = 100.0 * static_cast<double>(top->self_cpu_time_total_ns) /
                  static_cast<double>(std::max<int64_t>(1, by_name.self_cpu_time_total_ns()));
  return act;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    tl::set_num_threads(o.threads);
    tl::bench::print_header("profiler tutorial: MyModule(500, 10), input 128x500, mask side^3");
    std::printf("mask: %lld x %lld x %lld\n", static_cast<long long>(o.side), static_cast<long long>(o.side),
                static_cast<long long>(o.side));
    const Act a1 = run_act(o, 1, "float64 mask, copy + NumPy-style argwhere", tl::DType::Float64, false);
    const Act a2 = run_act(o, 2, "float32 mask, copy + NumPy-style argwhere", tl::DType::Float32, false);
    const Act a3 = run_act(o, 3, "float32 mask, (mask > threshold).nonzero()", tl::DType::Float32, true);

    std::printf("\n=== Figures ===\n");
    std::printf("act 1: the row with the most self CPU time is %s (%.2f%% of the total)\n", a1.top_key.c_str(),
                a1.top_share);
    const int64_t m64 = a1.mask_indices.self_cpu_memory_usage, m32 = a2.mask_indices.self_cpu_memory_usage;
    std::printf("memory attributed to MASK INDICES (Self CPU Mem): float64 %s -> float32 %s (ratio %.3f)\n",
                profiler::format_memory(m64).c_str(), profiler::format_memory(m32).c_str(),
                static_cast<double>(m32) / static_cast<double>(m64));
    const int64_t t2 = a2.mask_indices.cpu_time_total_ns, t3 = a3.mask_indices.cpu_time_total_ns;
    std::printf("time of MASK INDICES (CPU total): copy + argwhere %s -> nonzero() %s (%.1fx faster)\n",
                profiler::format_time(static_cast<double>(t2)).c_str(),
                profiler::format_time(static_cast<double>(t3)).c_str(),
                static_cast<double>(t2) / static_cast<double>(std::max<int64_t>(1, t3)));
    std::printf("peak RSS: %.0f MiB\n", tl::bench::peak_rss_mib());
    return 0;
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "profiler_tutorial: %s\n", e.what());
    return 1;
  }
}
