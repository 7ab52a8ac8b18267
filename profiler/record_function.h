// profiler/record_function.h — RecordFunction, torch.profiler.record_function in C++: an RAII
// scope with a user label ("LINEAR PASS") that groups the events inside it. It costs one
// thread-local read when no profile runs on the thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace tl::profiler {

namespace detail {
class Recorder;
}

/// Usage:
///   {
///     tl::profiler::RecordFunction scope("MASK INDICES");
///     ...   // ops here are this scope's children; its self time is what they leave over
///   }
/// Records a "user_annotation" event on the profile running on this thread (if any). Scopes
/// must nest; one closed early (end(), or destroyed out of order) also closes the scopes opened
/// inside it, so events always nest.
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name);
  ~RecordFunction() { end(); }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

  /// Closes the scope now (PyTorch's __exit__); later calls and the destructor do nothing.
  void end();

 private:
  detail::Recorder* recorder_ = nullptr;
  uint64_t id_ = 0;
};

}  // namespace tl::profiler
