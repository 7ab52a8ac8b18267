// profiler/profile.cpp — Profile's life cycle: start/step/stop drive the schedule's actions the
// way torch.profiler.profile._transit_action does (warmup installs the hooks, the first active
// step opens a window, the last one saves it), all on the thread that called start().
#include "profiler/profile.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/warning.h"
#include "profiler/clock.h"
#include "profiler/recorder.h"

namespace tl::profiler {
namespace {

bool is_recording(ProfilerAction a) { return a == ProfilerAction::Record || a == ProfilerAction::RecordAndSave; }

// torch.profiler.profile's activities as PyTorch 1.13 takes them where CUDA is not available
// (torch.autograd.profiler.profile.__init__): CUDA warns and is dropped; nothing left is an error.
std::vector<ProfilerActivity> checked_activities(std::vector<ProfilerActivity> activities) {
  if (activities.empty()) return supported_activities();
  std::string listed;
  bool cpu = false, cuda = false;
  for (ProfilerActivity a : activities) {
    TL_CHECK(a == ProfilerActivity::CPU || a == ProfilerActivity::CUDA, "profile: unknown ProfilerActivity ",
             static_cast<int>(a), " in activities; expected CPU or CUDA");
    cpu |= a == ProfilerActivity::CPU;
    cuda |= a == ProfilerActivity::CUDA;
    listed += std::string(listed.empty() ? "" : ", ") + (a == ProfilerActivity::CPU ? "CPU" : "CUDA");
  }
  if (cuda) warn("CUDA is not available, disabling CUDA profiling");
  TL_CHECK(cpu, "profile: no activities left to record: activities {", listed,
           "}, and CUDA is not available (torchless profiles the CPU); add ProfilerActivity::CPU");
  return activities;
}

}  // namespace

std::vector<ProfilerActivity> supported_activities() { return {ProfilerActivity::CPU}; }

ProfileGuard::~ProfileGuard() {
  if (profile_ == nullptr || !profile_->is_running()) return;
  try {
    profile_->stop();
  } catch (...) {
    // A destructor cannot throw; call stop() explicitly to see on_trace_ready's errors.
  }
}

Profile::Profile(ProfileOptions options)
    : options_(std::move(options)), recorder_(std::make_unique<detail::Recorder>(options_)) {
  if (options_.schedule) options_.schedule->validate();
  options_.activities = checked_activities(std::move(options_.activities));
}

Profile::~Profile() {
  if (!running_) return;
  if (std::this_thread::get_id() == owner_) {
    try {
      stop();
    } catch (...) {
      // Destructors must not throw; the hooks are removed by stop() before on_trace_ready runs.
    }
    return;
  }
  // The hooks live in the owner thread's thread-local stacks and can only be removed there: leave
  // the recorder installed but inert; the next profile started on that thread deletes it.
  recorder_->disable();
  (void)recorder_.release();
}

void Profile::check_owner(const char* what) const {
  TL_CHECK(std::this_thread::get_id() == owner_, "profile: ", what,
           "() must be called on the thread that called start()");
}

ProfilerAction Profile::action_for(int64_t step) const {
  return options_.schedule ? (*options_.schedule)(step) : ProfilerAction::Record;
}

ProfileGuard Profile::start() {
  TL_CHECK(!running_, "profile: start() called on a profile that is already running");
  detail::claim_thread(recorder_.get());
  owner_ = std::this_thread::get_id();
  running_ = true;
  has_results_ = false;
  results_ = EventList();
  step_num_ = 0;
  action_ = action_for(0);
  transit(ProfilerAction::None, action_);
  if (options_.schedule) open_step();
  return ProfileGuard(this);
}

void Profile::step() {
  TL_CHECK(running_, "profile: step() called on a profile that is not running");
  check_owner("step");
  if (options_.schedule) close_step();
  const ProfilerAction previous = action_;
  action_ = action_for(++step_num_);
  const bool saved = transit(previous, action_);
  if (options_.schedule) open_step();
  if (saved && options_.on_trace_ready) options_.on_trace_ready(*this);
}

void Profile::stop() {
  if (!running_) return;
  check_owner("stop");
  if (options_.schedule) close_step();
  const bool saved = window_open_;
  if (window_open_) end_window();
  recorder_->uninstall();
  recorder_->reset();
  detail::release_thread(recorder_.get());
  running_ = false;
  if (saved && options_.on_trace_ready) options_.on_trace_ready(*this);
}

bool Profile::transit(ProfilerAction from, ProfilerAction to) {
  bool saved = false;
  if (window_open_ && (from == ProfilerAction::RecordAndSave || !is_recording(to))) {
    end_window();
    saved = true;
  }
  if (to != ProfilerAction::None && !recorder_->installed()) recorder_->install();
  if (to == ProfilerAction::None && recorder_->installed()) {
    recorder_->uninstall();
    recorder_->reset();
  }
  if (is_recording(to) && !window_open_) begin_window();
  return saved;
}

void Profile::begin_window() {
  recorder_->discard();  // the warmup's events
  window_start_ns_ = now_ns();
  window_open_ = true;
}

void Profile::end_window() {
  results_ = recorder_->take(window_start_ns_, now_ns());
  has_results_ = true;
  window_open_ = false;
}

void Profile::open_step() {
  step_scope_ = recorder_->installed()
                    ? recorder_->open_event("ProfilerStep#" + std::to_string(step_num_), EventKind::ProfilerStep)
                    : 0;
}

void Profile::close_step() {
  if (step_scope_ != 0 && recorder_->installed()) recorder_->close_scope(step_scope_);
  step_scope_ = 0;
}

const EventList& Profile::events() const {
  TL_CHECK(!running_ || has_results_,
           "profile: no results yet; call stop() first (or, with a schedule, wait for the first active window to end)");
  return results_;
}

KeyAverages Profile::key_averages(const KeyAveragesOptions& options) const { return events().key_averages(options); }

std::string Profile::table(const TableOptions& options) const { return events().table(options); }

void Profile::export_chrome_trace(const std::string& path) const { events().export_chrome_trace(path); }

void Profile::export_stacks(const std::string& path, const std::string& metric) const {
  events().export_stacks(path, metric);
}

}  // namespace tl::profiler
