// core/autocast.cpp — the per-thread autocast state.
#include "core/autocast.h"

#include "core/error.h"

namespace tl {
namespace {

thread_local bool t_enabled = false;
thread_local DType t_dtype = DType::BFloat16;

}  // namespace

autocast::autocast(AutocastOptions options) : previous_enabled_(t_enabled), previous_dtype_(t_dtype) {
  TL_CHECK(options.dtype == DType::BFloat16, "autocast: CPU autocast supports bfloat16 only, got dtype ",
           options.dtype);
  t_enabled = options.enabled;
  t_dtype = options.dtype;
}

autocast::~autocast() {
  t_enabled = previous_enabled_;
  t_dtype = previous_dtype_;
}

bool is_autocast_enabled() { return t_enabled; }

DType get_autocast_dtype() { return t_dtype; }

namespace detail {

AutocastExcluded::AutocastExcluded() : previous_(t_enabled) { t_enabled = false; }

AutocastExcluded::~AutocastExcluded() { t_enabled = previous_; }

}  // namespace detail
}  // namespace tl
