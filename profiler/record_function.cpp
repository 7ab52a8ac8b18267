// profiler/record_function.cpp — a RecordFunction closes its scope only on the recorder that
// opened it, and only while that recorder is still the one installed on the thread.
#include "profiler/record_function.h"

#include <string>

#include "profiler/recorder.h"

namespace tl::profiler {

RecordFunction::RecordFunction(std::string_view name) {
  detail::Recorder* recorder = detail::current_recorder();
  if (recorder == nullptr) return;
  recorder_ = recorder;
  id_ = recorder->open_scope(std::string(name), EventKind::UserAnnotation);
}

void RecordFunction::end() {
  if (id_ == 0) return;
  // Scope ids are unique per thread, so a recorder installed since at the same address ignores it.
  if (detail::current_recorder() == recorder_) recorder_->close_scope(id_);
  id_ = 0;
  recorder_ = nullptr;
}

}  // namespace tl::profiler
