// tests/install/consumer/trace_check.cpp — trace analysis from the installed package: a .json.gz round trip.
#include <cstdio>
#include <torchless/trace.h>
#include <torchless/core/file_writer.h>

int main(int, char** argv) {
  const std::string path = std::string(argv[1]) + "/t.json.gz";
  tl::write_file(path, R"({"traceEvents": [{"ph": "X", "name": "aten::add", "ts": 1, "dur": 5, "pid": 1, "tid": 1}]})",
                 "trace_check");
  tl::trace::Trace t = tl::trace::load_trace(path);
  std::printf("%zu event: %s, %lld ns\n", t.events.size(), t.str(t.events[0].name).c_str(),
              static_cast<long long>(t.events[0].dur));
}
