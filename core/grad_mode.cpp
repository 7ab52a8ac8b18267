// core/grad_mode.cpp — the per-thread grad mode flag.
#include "core/grad_mode.h"

namespace tl {
namespace {

thread_local bool t_grad_enabled = true;

}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }

void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

}  // namespace tl
