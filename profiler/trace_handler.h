// profiler/trace_handler.h — torch.profiler.tensorboard_trace_handler: an on_trace_ready callback that
// writes each recorded window as a Chrome trace file of its own, into a directory TensorBoard and HTA read.
#pragma once

#include <functional>
#include <string>

namespace tl::profiler {

class Profile;

/// For ProfileOptions::on_trace_ready. Each call writes the profile's window (export_chrome_trace, so
/// through the one FileWriter) to `{dir_name}/{worker_name}.{ns}.pt.trace.json`, with ".gz" appended
/// and gzip-compressed when `use_gzip`; {ns} is the wall-clock time in nanoseconds since the epoch
/// (PyTorch 1.13 writes milliseconds, later versions nanoseconds: two windows within a millisecond
/// would share a name). The directory and its parents are created when missing. An empty
/// `worker_name` stands for "{hostname}_{pid}", as in PyTorch. Throws tl::Error for an empty
/// `dir_name` and for a `worker_name` that is not a file name (a '/', "." or ".."); the callback throws tl::Error naming the directory when it cannot create it, and
/// export_chrome_trace's errors when it cannot write the file.
std::function<void(Profile&)> tensorboard_trace_handler(const std::string& dir_name, const std::string& worker_name = "",
                                                        bool use_gzip = false);

}  // namespace tl::profiler
