// bench/tracediff_demo.cpp — TraceDiff end to end: a report (text, CSV, SVG charts) for any two trace
// sets, and a streaming check that loads a generated large trace and reports time and peak RSS.
//
//   tracediff_demo resnet18 OUT_DIR [STEPS]           profile unfused vs fused ResNet18 (trace directories
//                                                     OUT_DIR/unfused, OUT_DIR/fused), then report
//   tracediff_demo resnet18-train OUT_DIR [STEPS]     profile ResNet18 training steps at batch 8 vs 16
//                                                     (OUT_DIR/batch8, OUT_DIR/batch16), then report
//   tracediff_demo report CONTROL TEST OUT_DIR [TOP]   e.g. unfused vs fused ResNet18 trace sets
//   tracediff_demo stream SIZE_MB [DIR] [RUNS]         generate ~SIZE_MB of trace, load it RUNS times
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/train_step.h"
#include "core/error.h"
#include "core/file_writer.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "fx/passes/fuse_conv_bn.h"
#include "models/resnet.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/trace_handler.h"
#include "trace/diff_chart.h"
#include "trace/trace.h"
#include "trace/trace_diff.h"

namespace fs = std::filesystem;
namespace trace = tl::trace;

namespace {

// Writes the table, the CSV and three charts for `control` vs `test` into `out`. Averages every
// profiled step (not HTA's default first step only), so the report's numbers are per-iteration means.
void write_report(const trace::TraceSet& control, const trace::TraceSet& test, const fs::path& out, size_t top) {
  fs::create_directories(out);
  trace::DiffTable table =
      trace::compare_traces(control, test, {.iterations = trace::Iterations::All}).exclude({"ProfilerStep*"});
  trace::DiffTable by_duration = table.sort_values("abs_diff_duration", false);
  std::string text = by_duration.head(top).table();
  std::cout << text;
  auto save = [&](const char* name, const std::string& content) {
    tl::write_file((out / name).string(), content, "tracediff_demo");
  };
  save("tracediff.txt", by_duration.table());
  save("tracediff.csv", by_duration.to_csv());
  trace::write_diff_charts(table, out, top, "tracediff_demo");
  trace::OpsDiff d = trace::ops_diff(table);
  for (const auto& [title, rows] : {std::pair{"added", &d.added}, {"deleted", &d.deleted}}) {
    std::cout << title << ":";
    for (const trace::OpDiff& r : *rows)
      std::cout << "  " << r.label() << " (" << (r.change == trace::Change::Added ? r.test.counts : r.control.counts)
                << "/iteration)";
    std::cout << "\n";
  }
  std::cout << d.increased.size() << " increased, " << d.decreased.size() << " decreased, " << d.unchanged.size()
            << " unchanged; wrote " << out.string() << "/{tracediff.txt,tracediff.csv,*_diff.svg}\n";
}

// Peak resident set size of this process so far, in MB (Linux VmHWM).
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024.0;
  return -1;
}

// A kineto-like trace: ProfilerStep spans holding module scopes, ops and nested kernels on two
// threads, with shapes and memory events; written as it is generated, so memory stays flat. The same
// seed makes file.json and file.json.gz (compressed by the writer) hold the same trace.
int64_t generate_trace(const fs::path& file, double size_mb) {
  tl::FileWriter writer(file.string(), "tracediff_demo");
  std::ostream& out = writer.stream();
  const char* ops[] = {"aten::conv2d", "aten::batch_norm", "aten::relu_", "aten::add_", "aten::max_pool2d",
                       "aten::linear", "aten::adaptive_avg_pool2d", "aten::flatten"};
  std::mt19937 rng(7);
  out << "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [\n";
  auto bytes = [&] { return static_cast<double>(out.tellp()) / (1 << 20); };
  int64_t events = 0, ts = 1700000000000, id = 0;
  for (int step = 0; bytes() < size_mb; ++step) {
    out << "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" << step
        << "\", \"pid\": 1, \"tid\": 1, \"ts\": " << ts << ", \"dur\": 200000, \"args\": {}},\n";
    int64_t t = ts + 10;
    for (int k = 0; k < 2000; ++k, t += 90) {
      const char* op = ops[rng() % 8];
      int c = 64 << (rng() % 4), hw = 56 >> (rng() % 3);
      int64_t op_id = ++id, kernel_id = ++id;
      out << "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" << op << "\", \"pid\": 1, \"tid\": " << 1 + k % 2
          << ", \"ts\": " << t << ", \"dur\": 80, \"args\": {\"External id\": " << op_id << ", \"Input Dims\": [[10, "
          << c << ", " << hw << ", " << hw << "], [" << c << ", " << c << ", 3, 3], [], [], [], [], []], "
          << "\"Input type\": [\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Int\"]}},\n"
          << "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" << op << "_kernel\", \"pid\": 1, \"tid\": " << 1 + k % 2
          << ", \"ts\": " << t + 5 << ", \"dur\": 60.5, \"args\": {\"External id\": " << kernel_id << "}},\n"
          << "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
          << "\"ts\": " << t + 6 << ", \"args\": {\"Bytes\": 4096, \"Total Allocated\": 4096}},\n";
      events += 3;
    }
    ts += 200000;
  }
  out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"demo\"}}\n]}\n";
  writer.commit();
  return events + 1;
}

void stream_check(double size_mb, const fs::path& dir, int runs) {
  fs::create_directories(dir);
  fs::path file = dir / "large_trace.json";
  int64_t written = generate_trace(file, size_mb);
  double file_mb = static_cast<double>(fs::file_size(file)) / (1 << 20);
  std::printf("generated %s: %.1f MB, %lld events\n", file.string().c_str(), file_mb, static_cast<long long>(written));
  const fs::path gz = file.string() + ".gz";
  generate_trace(gz, size_mb);
  const std::vector<fs::path> inputs = {file, gz};
  for (const fs::path& input : inputs) {
    double rss_before = peak_rss_mb();
    std::vector<double> seconds, cpu_seconds;
    size_t kept = 0;
    for (int r = 0; r < runs; ++r) {
      auto start = std::chrono::steady_clock::now();
      std::clock_t cpu_start = std::clock();
      trace::Trace t = trace::load_trace(input);
      cpu_seconds.push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      kept = t.events.size();
    }
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpu_seconds.begin(), cpu_seconds.end());
    double median = seconds[seconds.size() / 2], cpu = cpu_seconds[cpu_seconds.size() / 2];
    std::printf("%-22s %7.1f MB on disk  load median %.2f s wall (min %.2f, max %.2f, %d runs), %.2f s CPU = %.0f "
                "MB/s of JSON per core\n",
                input.filename().string().c_str(), static_cast<double>(fs::file_size(input)) / (1 << 20), median,
                seconds.front(), seconds.back(), runs, cpu, file_mb / cpu);
    std::printf("    %zu complete events kept (%.1f MB as OpEvent); peak RSS %.1f MB before loading, %.1f MB after "
                "(%.2f x the JSON size)\n",
                kept, static_cast<double>(kept * sizeof(trace::OpEvent)) / (1 << 20), rss_before, peak_rss_mb(),
                peak_rss_mb() / file_mb);
  }
}

// Profiles `steps` calls of `step` (ProfilerStep#N annotations, record_shapes) into `dir` as a
// TensorBoard / HTA trace directory (<worker>.<ns>.pt.trace.json), replacing an earlier run's traces. Two
// unprofiled calls come first (the schedule's wait and warm-up steps), so the allocator's block cache is
// filled before the first recorded step.
void profile_steps(const std::function<void()>& step, const std::string& worker, int64_t steps, const fs::path& dir) {
  if (fs::is_directory(dir))
    for (const fs::directory_entry& entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().ends_with(".pt.trace.json")) fs::remove(entry.path());
  tl::profiler::Profile prof({.record_shapes = true,
                              .schedule = tl::profiler::Schedule{.wait = 1, .warmup = 1, .active = steps, .repeat = 1},
                              .on_trace_ready = tl::profiler::tensorboard_trace_handler(dir.string(), worker)});
  auto running = prof.start();
  for (int64_t i = 0; i < steps + 2; ++i) {
    step();
    prof.step();
  }
}

// The seed's use of TraceDiff on this project's own pass: unfused vs conv-bn fused ResNet18.
void resnet18_report(const fs::path& out, int64_t steps) {
  tl::manual_seed(0);
  auto model = tl::models::resnet18();
  model->eval();
  auto fused = tl::fx::fuse_conv_bn(model);
  const tl::Tensor x = tl::randn({2, 3, 224, 224});
  profile_steps([&] { (*model)(x); }, "resnet18", steps, out / "unfused");
  profile_steps([&] { (*fused)(x); }, "resnet18", steps, out / "fused");
  write_report(trace::load_trace_set(out / "unfused"), trace::load_trace_set(out / "fused"), out / "report", 10);
}

// TraceDiff on training: bench_train's ResNet18 step (SGD with momentum, synthetic batch, 2 threads) at
// batch 8 against batch 16. The optimizer has one update path (per parameter), so the batch is the
// configuration to vary: ops whose cost follows the activations double, the optimizer's stay.
void resnet18_train_report(const fs::path& out, int64_t steps) {
  tl::set_num_threads(2);
  for (int64_t batch : {8, 16}) {
    tl::manual_seed(0);
    tl::bench::Trainer trainer(batch, false);
    const std::string name = "batch" + std::to_string(batch);
    profile_steps([&] { tl::bench::train_step(trainer); }, "resnet18_train_" + name, steps, out / name);
  }
  write_report(trace::load_trace_set(out / "batch8"), trace::load_trace_set(out / "batch16"), out / "report", 10);
}

int usage() {
  std::cerr << "usage: tracediff_demo resnet18 OUT_DIR [STEPS]\n"
               "       tracediff_demo resnet18-train OUT_DIR [STEPS]\n"
               "       tracediff_demo report CONTROL TEST OUT_DIR [TOP]\n"
               "       tracediff_demo stream SIZE_MB [DIR] [RUNS]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 2 && args[0] == "resnet18") {
      resnet18_report(args[1], args.size() > 2 ? tl::bench::parse_number<int64_t>("STEPS", args[2], 1) : 3);
      return 0;
    }
    if (args.size() >= 2 && args[0] == "resnet18-train") {
      resnet18_train_report(args[1], args.size() > 2 ? tl::bench::parse_number<int64_t>("STEPS", args[2], 1) : 3);
      return 0;
    }
    if (args.size() >= 4 && args[0] == "report") {
      write_report(trace::load_trace_set(fs::path(args[1])), trace::load_trace_set(fs::path(args[2])), args[3],
                   args.size() > 4 ? tl::bench::parse_number<size_t>("TOP", args[4], 1) : 10);
      return 0;
    }
    if (args.size() >= 2 && args[0] == "stream") {
      stream_check(tl::bench::parse_number("SIZE_MB", args[1], 0.0),
                   args.size() > 2 ? fs::path(args[2]) : fs::temp_directory_path(),
                   args.size() > 3 ? tl::bench::parse_number("RUNS", args[3], 1) : 3);
      return 0;
    }
  } catch (const tl::Error& e) {
    std::cerr << "tracediff_demo: " << e.what() << "\n";
    return 1;
  }
  return usage();
}
