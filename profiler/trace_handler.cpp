// profiler/trace_handler.cpp — the file name and directory of tensorboard_trace_handler; the writing is
// export_chrome_trace's.
#include "profiler/trace_handler.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "profiler/clock.h"
#include "profiler/profile.h"

namespace tl::profiler {
namespace {

std::string default_worker_name() {
  char host[HOST_NAME_MAX + 1] = {};
  TL_CHECK(gethostname(host, sizeof host - 1) == 0, "tensorboard_trace_handler: gethostname failed");
  return std::string(host) + "_" + std::to_string(current_process_id());
}

}  // namespace

std::function<void(Profile&)> tensorboard_trace_handler(const std::string& dir_name, const std::string& worker_name,
                                                        bool use_gzip) {
  TL_CHECK(!dir_name.empty(), "tensorboard_trace_handler: dir_name is empty");
  // The worker name is part of a file name: a '/' in it would write outside dir_name.
  TL_CHECK(worker_name.find('/') == std::string::npos && worker_name != "." && worker_name != "..",
           "tensorboard_trace_handler: worker_name '", worker_name, "' must be a file name, without '/'");
  return [dir_name, worker_name, use_gzip](Profile& prof) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir_name, error)) {
      std::filesystem::create_directories(dir_name, error);
      TL_CHECK(!error, "tensorboard_trace_handler: can't create directory: ", dir_name, " (", error.message(), ")");
    }
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
    const std::string worker = worker_name.empty() ? default_worker_name() : worker_name;
    const std::string file = worker + "." + std::to_string(ns) + ".pt.trace.json" + (use_gzip ? ".gz" : "");
    prof.export_chrome_trace((std::filesystem::path(dir_name) / file).string());
  };
}

}  // namespace tl::profiler
