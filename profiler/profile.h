// profiler/profile.h — tl::profiler::Profile, torch.profiler.profile in C++: records op events
// from the dispatch hook, memory events from the allocation hook and scopes (RecordFunction,
// module calls, ProfilerStep#N) on the thread that started it, and only on that thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "profiler/event_list.h"
#include "profiler/key_averages.h"
#include "profiler/schedule.h"
#include "profiler/table.h"

namespace tl::profiler {

class Profile;

namespace detail {
class Recorder;
}

/// What a profile records (torch.profiler.ProfilerActivity). torchless runs on the CPU only: CUDA is
/// taken as PyTorch 1.13 takes it on a machine without CUDA (see ProfileOptions::activities).
enum class ProfilerActivity : uint8_t { CPU, CUDA };

/// torch.profiler.supported_activities(): {CPU}.
std::vector<ProfilerActivity> supported_activities();

/// torch.profiler.profile's arguments.
struct ProfileOptions {
  /// torch.profiler.profile's `activities`; empty means supported_activities(). As PyTorch 1.13 where
  /// CUDA is not available: CUDA is dropped with the warning "CUDA is not available, disabling CUDA
  /// profiling" (tl::warn), and activities without CPU leave nothing to record, a tl::Error (PyTorch:
  /// "No activities specified for the profiler"). Checked when the Profile is made (PyTorch: at start()).
  std::vector<ProfilerActivity> activities;
  /// Record each op's argument shapes and types ("Input Shapes", trace "Input Dims").
  bool record_shapes = false;
  /// Record tensor allocations and releases ("CPU Mem", "Self CPU Mem", trace "[memory]" events).
  bool profile_memory = false;
  /// Record each event's enclosing RecordFunction and module scopes ("Source Location"); implies
  /// with_modules.
  bool with_stack = false;
  /// Estimate flops of conv2d, mm, addmm, bmm, matmul, linear, add, mul (see flops.h).
  bool with_flops = false;
  /// Open an "nn.Module: <Type>_<k>" scope around each module call (k counts the distinct
  /// modules of that type in order of first call, as PyTorch numbers them).
  bool with_modules = false;
  /// When set, step() drives wait/warmup/active cycles and emits ProfilerStep#N scopes; without
  /// it everything between start() and stop() is recorded.
  std::optional<Schedule> schedule;
  /// Called (on the profiled thread) each time a recorded window ends; the Profile's results
  /// are that window's.
  std::function<void(Profile&)> on_trace_ready;
};

/// Stops its profile when it goes out of scope (unless it was stopped already); it must not outlive
/// the profile. Errors of that stop() (from on_trace_ready) are lost: call stop() to see them.
class [[nodiscard]] ProfileGuard {
 public:
  explicit ProfileGuard(Profile* profile) : profile_(profile) {}
  ProfileGuard(ProfileGuard&& other) noexcept : profile_(std::exchange(other.profile_, nullptr)) {}
  ProfileGuard& operator=(ProfileGuard&&) = delete;
  ProfileGuard(const ProfileGuard&) = delete;
  ProfileGuard& operator=(const ProfileGuard&) = delete;
  ~ProfileGuard();

 private:
  Profile* profile_;
};

/// Usage:
///   Profile prof({.profile_memory = true, .with_stack = true});
///   {
///     auto running = prof.start();
///     model(input);
///   }
///   std::cout << prof.key_averages({.group_by_stack_n = 5}).table({.sort_by = "self_cpu_time_total"});
/// Recording is per thread: ops, allocations and scopes of other threads are not seen, so two
/// threads can profile at the same time without mixing events. A thread runs one Profile at a time.
class Profile {
 public:
  /// Throws tl::Error for an invalid schedule and for activities without ProfilerActivity::CPU (after
  /// warning about CUDA); an empty `activities` becomes supported_activities().
  explicit Profile(ProfileOptions options = {});
  /// Stops a running profile. Destroyed on another thread while running, it cannot remove its
  /// hooks (they are per thread): they stay inert until that thread starts its next profile.
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  /// Starts profiling the calling thread. Throws tl::Error if this profile is running or another
  /// profile runs on this thread.
  ProfileGuard start();
  /// Stops profiling (the current window, if any, becomes the results and on_trace_ready runs).
  /// Does nothing when not running; throws tl::Error when called from another thread.
  void stop();
  /// Marks the end of a step: closes ProfilerStep#N, applies the schedule's action for step
  /// N + 1 and opens ProfilerStep#(N+1). Throws tl::Error when not running or on another thread.
  void step();
  bool is_running() const { return running_; }
  /// The number of the current step (0 before the first step()).
  int64_t step_num() const { return step_num_; }
  const ProfileOptions& options() const { return options_; }

  // ---- results: the last recorded window; while running they throw tl::Error until a scheduled
  // window has been saved ----
  const EventList& events() const;
  KeyAverages key_averages(const KeyAveragesOptions& options = {}) const;
  /// One row per event (PyTorch's prof.table()).
  std::string table(const TableOptions& options = {}) const;
  int64_t self_cpu_time_total_ns() const { return events().self_cpu_time_total_ns(); }
  /// Time spent in the profiler's own hooks during the window.
  int64_t profiler_overhead_ns() const { return events().profiler_overhead_ns(); }
  void export_chrome_trace(const std::string& path) const;
  /// Requires with_stack (PyTorch asserts the same).
  void export_stacks(const std::string& path, const std::string& metric = "self_cpu_time_total") const;

 private:
  void check_owner(const char* what) const;
  ProfilerAction action_for(int64_t step) const;
  /// Applies the change of action between two steps; true when a recorded window was saved.
  bool transit(ProfilerAction from, ProfilerAction to);
  void begin_window();
  void end_window();
  void open_step();
  void close_step();

  ProfileOptions options_;
  std::unique_ptr<detail::Recorder> recorder_;
  bool running_ = false;
  std::thread::id owner_;
  int64_t step_num_ = 0;
  ProfilerAction action_ = ProfilerAction::None;
  bool window_open_ = false;
  bool has_results_ = false;
  int64_t window_start_ns_ = 0;
  uint64_t step_scope_ = 0;
  EventList results_;
};

}  // namespace tl::profiler
