// tools/tl_run.cpp — tl-run, torchrun's single-node form: `tl-run --nproc-per-node N [--master-port P] prog args...`
// starts N ranks of prog with the environment init_process_group("gloo") reads (distributed/launch.h).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>

#include "core/error.h"
#include "distributed/launch.h"

namespace {

const char* kUsage =
    "usage: tl-run --nproc-per-node N [--master-addr ADDR] [--master-port PORT] program [args...]\n"
    "Starts N processes of program with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,\n"
    "MASTER_PORT (a free port unless given) and OMP_NUM_THREADS (cores / N unless set); when one fails,\n"
    "stops the others and exits with 1 naming it.\n";

int64_t parse_count(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  TL_CHECK(!text.empty() && *end == '\0', "tl-run: ", flag, " expects an integer, got '", text, "'");
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    tl::distributed::LaunchConfig config;
    int i = 1;
    for (; i < argc && std::string(argv[i]).rfind("--", 0) == 0; ++i) {
      std::string flag = argv[i], value;
      if (flag == "--help") {
        std::cout << kUsage;
        return 0;
      }
      if (const auto eq = flag.find('='); eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
      } else {
        TL_CHECK(i + 1 < argc, "tl-run: ", flag, " expects a value");
        value = argv[++i];
      }
      std::replace(flag.begin(), flag.end(), '_', '-');  // torchrun accepts --nproc_per_node too
      if (flag == "--nproc-per-node") {
        config.nproc_per_node = parse_count(flag, value);
      } else if (flag == "--master-port") {
        config.master_port = parse_count(flag, value);
      } else if (flag == "--master-addr") {
        config.master_addr = value;
      } else {
        TL_CHECK(false, "tl-run: unknown option ", flag, "\n", kUsage);
      }
    }
    config.args.assign(argv + i, argv + argc);
    TL_CHECK(!config.args.empty(), "tl-run: no program given\n", kUsage);
    const tl::distributed::LaunchResult result = tl::distributed::launch(config);
    if (result.exit_code != 0) std::cerr << "tl-run: " << result.message << "\n";
    return result.exit_code;
  } catch (const tl::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
