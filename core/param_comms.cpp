// core/param_comms.cpp — the calling thread's current ParamComms: one thread-local pointer.
#include "core/param_comms.h"

namespace tl {
namespace {

thread_local const ParamComms* t_current = nullptr;

}  // namespace

ParamCommsGuard::ParamCommsGuard(const ParamComms& comms) : previous_(t_current) { t_current = &comms; }

ParamCommsGuard::~ParamCommsGuard() { t_current = previous_; }

const ParamComms* current_param_comms() { return t_current; }

}  // namespace tl
