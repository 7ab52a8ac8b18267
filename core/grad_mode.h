// core/grad_mode.h — whether ops record autograd history on this thread: torch.no_grad(),
// torch.enable_grad() and torch.inference_mode()'s C++ counterparts. The dispatch point reads it.
#pragma once

namespace tl {

struct GradMode {
  /// True unless a NoGradGuard / InferenceMode is open on the calling thread.
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// RAII: sets grad mode for a scope and restores the previous mode (torch.set_grad_enabled).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

/// `with torch.no_grad():` ops in scope record no history; their results do not require grad.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// `with torch.inference_mode():` as NoGradGuard (torchless keeps no extra per-tensor state for it).
class InferenceMode : public AutoGradMode {
 public:
  explicit InferenceMode(bool enabled = true) : AutoGradMode(!enabled) {}
};

}  // namespace tl
