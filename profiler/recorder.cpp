// profiler/recorder.cpp — the hot path of the profiler: one small record and four clock reads per
// op (two time the hooks themselves). Start times are read last and end times first, so the
// profiler's bookkeeping stays outside the op's own interval and is added up separately.
#include "profiler/recorder.h"

#include <iterator>

#include "core/error.h"
#include "core/param_comms.h"
#include "ops/aten_tree.h"
#include "profiler/clock.h"
#include "profiler/comms_meta.h"
#include "profiler/flops.h"
#include "profiler/module_scope.h"
#include "profiler/op_inputs.h"
#include "profiler/source_frames.h"

namespace tl::profiler::detail {
namespace {

thread_local Recorder* t_owner = nullptr;
// Scope ids are unique per thread, so an id kept by a RecordFunction never matches a scope of a
// later recorder installed on the same thread.
thread_local uint64_t t_next_id = 0;

constexpr int64_t kOpenEnd = INT64_MAX;

// An op without an aten name is Python's (Tensor.__rtruediv__): PyTorch records only the ops it runs.
bool is_aten(const OpCall& call) { return op_info(call.op).aten_name[0] != '\0'; }

}  // namespace

void claim_thread(Recorder* recorder) {
  if (t_owner != nullptr && t_owner != recorder) {
    TL_CHECK(!t_owner->enabled(), "profile: another profile is already running on this thread; stop it first");
    t_owner->uninstall();
    delete t_owner;
  }
  t_owner = recorder;
}

void release_thread(Recorder* recorder) {
  if (t_owner == recorder) t_owner = nullptr;
}

Recorder::Recorder(const ProfileOptions& options) : options_(options) {
  open_.reserve(64);
  memory_.reserve(1024);
}

Recorder::~Recorder() { relayed_->set_recording(false); }

void Recorder::disable() {
  enabled_.store(false, std::memory_order_relaxed);
  relayed_->set_recording(false);
}

void Recorder::install() {
  TL_INTERNAL_ASSERT(!installed_, "profiler recorder installed twice on a thread");
  thread_ = current_thread_id();
  // All four or none: a full hook stack leaves the thread as it was.
  push_scope_observer(this);
  try {
    push_scope_relay(this);
    try {
      dispatch::push_hook(this);
      try {
        if (options_.profile_memory) push_allocation_hook(this);
      } catch (...) {
        dispatch::pop_hook(this);
        throw;
      }
    } catch (...) {
      pop_scope_relay(this);
      throw;
    }
  } catch (...) {
    pop_scope_observer(this);
    throw;
  }
  if (options_.with_stack || options_.with_modules) module_scopes_ = std::make_unique<ModuleScopes>(*this);
  if (options_.with_stack) {
    // libunwind sets itself up on its first capture: done here, not inside the first event.
    std::vector<uint64_t> warm_up;
    capture_frames(warm_up);
  }
  installed_ = true;
  relayed_->set_recording(enabled());
}

void Recorder::uninstall() {
  if (!installed_) return;
  module_scopes_.reset();
  relayed_->set_recording(false);
  if (options_.profile_memory) pop_allocation_hook(this);
  dispatch::pop_hook(this);
  pop_scope_relay(this);
  pop_scope_observer(this);
  installed_ = false;
}

Recorder::RawEvent& Recorder::EventBuffer::push() {
  if (size_ == static_cast<int64_t>(chunks_.size()) * kChunk)
    chunks_.push_back(std::make_unique_for_overwrite<RawEvent[]>(kChunk));
  return (*this)[size_++];
}

int64_t Recorder::push_event(const char* op_name, EventKind kind, int64_t sequence_nr, uint64_t forward_thread) {
  const int64_t index = events_.size();
  RawEvent& e = events_.push();
  e = RawEvent{op_name, 0, kOpenEnd, open_.empty() ? -1 : open_.back().index, 0, sequence_nr, -1, -1, -1, -1,
               static_cast<uint32_t>(forward_thread), kind};
  if (options_.with_stack) {
    e.frames = static_cast<int32_t>(frames_.size());
    frames_.push_back(0);
    frames_[e.frames] = static_cast<uint64_t>(capture_frames(frames_));
  }
  open_.push_back({++t_next_id, index});
  return index;
}

uint64_t Recorder::open_event(std::string name, EventKind kind, const ScopeLink& link) {
  if (!enabled_.load(std::memory_order_relaxed)) return 0;
  const int64_t entry = now_ns();
  const int64_t index = push_event(nullptr, kind, link.sequence_nr, link.forward_thread);
  events_[index].text = static_cast<int32_t>(texts_.size());
  texts_.push_back(std::move(name));
  const uint64_t id = open_.back().id;
  const int64_t start = now_ns();
  events_[index].start_ns = start;
  overhead_ns_ += start - entry;
  return id;
}

uint64_t Recorder::open_scope(std::string_view name, RecordScope scope, const ScopeLink& link,
                              const ScopeInputs* inputs) {
  const EventKind kind = scope == RecordScope::Function ? EventKind::Function : EventKind::UserAnnotation;
  const uint64_t id = open_event(std::string(name), kind, link);
  const ParamComms* comms = name == kParamCommsScope ? current_param_comms() : nullptr;
  const bool shapes = inputs != nullptr && options_.record_shapes;
  if (id == 0 || (comms == nullptr && !shapes)) return id;
  const int64_t entry = now_ns();
  RawEvent& e = events_[open_.back().index];
  if (shapes) {
    e.inputs = static_cast<int32_t>(inputs_.size());
    Inputs& in = inputs_.emplace_back();
    describe_inputs((*inputs)(), in.shapes, in.types);
  }
  if (comms != nullptr) {
    e.meta = static_cast<int32_t>(metas_.size());
    metas_.push_back(param_comms_metadata(*comms));
  }
  const int64_t start = now_ns();
  e.start_ns = start;
  overhead_ns_ += start - entry;
  return id;
}

void Recorder::close_from(size_t position, int64_t end_ns) {
  for (size_t i = position; i < open_.size(); ++i) {
    RawEvent& e = events_[open_[i].index];
    e.end_ns = end_ns;
    // The innermost op that has a flop estimate owns the flops: a wrapper op (linear over
    // addmm) would otherwise count them twice.
    if (e.flops > 0 && e.parent >= 0 && events_[e.parent].kind == EventKind::Op) events_[e.parent].flops = 0;
  }
  open_.resize(position);
}

void Recorder::close_scope(uint64_t id) {
  const int64_t end = now_ns();
  for (size_t i = open_.size(); i-- > 0;) {
    if (open_[i].id != id) continue;
    close_from(i, end);
    break;
  }
  overhead_ns_ += now_ns() - end;
}

void Recorder::before(const OpCall& call) {
  if (!enabled_.load(std::memory_order_relaxed) || !is_aten(call)) return;
  const int64_t entry = now_ns();
  const int64_t index = push_event(op_info(call.op).aten_name, EventKind::Op, call.sequence_nr, 0);
  RawEvent& e = events_[index];
  if (options_.record_shapes) {
    e.inputs = static_cast<int32_t>(inputs_.size());
    Inputs& in = inputs_.emplace_back();
    describe_inputs(call, in.shapes, in.types);
  }
  if (options_.with_flops) e.flops = estimate_flops(call.op, call.inputs, call.attrs());
  ops_.push_back({open_.back().id, tree_open_.size()});
  const int64_t start = now_ns();
  e.start_ns = start;
  overhead_ns_ += start - entry;
  // The ATen ops the call records inside itself before its kernel runs (their own clock reads).
  if (tl::detail::has_aten_tree(call)) tl::detail::emit_aten_tree(call, nullptr, *this, tree_open_);
}

void Recorder::after(const OpCall& call, const TensorList* outputs) {
  if (!enabled_.load(std::memory_order_relaxed) || ops_.empty() || !is_aten(call)) return;
  const OpInProgress op = ops_.back();
  ops_.pop_back();
  // The rest of the call's ATen tree, when the kernel returned; closing the op closes what is still open.
  if (outputs != nullptr && tl::detail::has_aten_tree(call)) tl::detail::emit_aten_tree(call, outputs, *this, tree_open_);
  tree_open_.resize(std::min(tree_open_.size(), op.tree_open));
  close_scope(op.id);
}

void Recorder::on_allocation(const void* ptr, int64_t bytes_delta, int64_t bytes_in_use) {
  if (!enabled_.load(std::memory_order_relaxed)) return;
  const int64_t entry = now_ns();
  memory_.push_back({entry, thread_, bytes_delta, bytes_in_use, reinterpret_cast<uint64_t>(ptr),
                     open_.empty() ? -1 : open_.back().index});
  overhead_ns_ += now_ns() - entry;
}

std::shared_ptr<ScopeObserver> Recorder::observer_for_other_thread() {
  return enabled() ? relayed_->stand_in() : nullptr;
}

FunctionEvent Recorder::materialize(const RawEvent& raw) const {
  FunctionEvent e;
  e.name = raw.op_name ? std::string(raw.op_name) : texts_[raw.text];
  e.kind = raw.kind;
  e.thread = thread_;
  e.start_ns = raw.start_ns;
  e.end_ns = raw.end_ns;
  e.flops = raw.flops;
  e.sequence_nr = raw.sequence_nr;
  e.forward_thread = raw.forward_thread;
  if (raw.inputs >= 0) {
    e.input_shapes = inputs_[raw.inputs].shapes;
    e.input_types = inputs_[raw.inputs].types;
  }
  if (raw.frames >= 0) {
    const auto first = frames_.begin() + raw.frames + 1;
    e.frames.assign(first, first + static_cast<int64_t>(frames_[raw.frames]));
  }
  if (raw.meta >= 0) e.extra_meta = metas_[raw.meta];
  return e;
}

EventList Recorder::take(int64_t start_ns, int64_t end_ns) {
  std::vector<int64_t> remap(static_cast<size_t>(events_.size()), -1);
  std::vector<FunctionEvent> events;
  for (int64_t i = 0; i < events_.size(); ++i) {
    const RawEvent& raw = events_[i];
    if (raw.start_ns < start_ns || raw.start_ns > end_ns) continue;
    remap[i] = static_cast<int64_t>(events.size());
    FunctionEvent& e = events.emplace_back(materialize(raw));
    e.end_ns = std::min(raw.end_ns, end_ns);
    // An excluded parent started before the window, and so did all of its ancestors.
    e.parent = raw.parent >= 0 ? remap[raw.parent] : -1;
  }
  std::vector<MemoryEvent> memory;
  for (const MemoryEvent& m : memory_) {
    if (m.time_ns < start_ns || m.time_ns > end_ns) continue;
    MemoryEvent& copy = memory.emplace_back(m);
    copy.parent = m.parent >= 0 ? remap[m.parent] : -1;
  }
  EventListInfo info;
  info.record_shapes = options_.record_shapes;
  info.profile_memory = options_.profile_memory;
  info.with_stack = options_.with_stack;
  info.with_flops = options_.with_flops;
  info.process_id = current_process_id();
  info.thread_names = {{thread_, current_thread_name()}};
  info.profiler_overhead_ns = overhead_ns_;
  info.window_start_ns = start_ns;
  info.window_end_ns = end_ns;
  relayed_->take(start_ns, end_ns, events, info.thread_names);
  forget_closed();
  return EventList(std::move(events), std::move(memory), std::move(info));
}

void Recorder::discard() {
  forget_closed();
  relayed_->clear();
}

void Recorder::forget_closed() {
  compact();
  memory_.clear();
  overhead_ns_ = 0;
}

void Recorder::reset() {
  open_.clear();
  ops_.clear();
  tree_open_.clear();
  discard();
}

void Recorder::compact() {
  // Open events are nested, each inside the previous one, so after dropping the closed events
  // open event k's parent is open event k - 1. Buffers keep their capacity for the next window.
  std::vector<RawEvent> kept;
  std::vector<std::string> texts;
  std::vector<Inputs> inputs;
  std::vector<uint64_t> frames;
  std::vector<std::vector<std::pair<std::string, std::string>>> metas;
  for (size_t k = 0; k < open_.size(); ++k) {
    RawEvent e = events_[open_[k].index];
    e.parent = static_cast<int64_t>(k) - 1;
    if (e.text >= 0) {
      texts.push_back(std::move(texts_[e.text]));
      e.text = static_cast<int32_t>(texts.size()) - 1;
    }
    if (e.inputs >= 0) {
      inputs.push_back(std::move(inputs_[e.inputs]));
      e.inputs = static_cast<int32_t>(inputs.size()) - 1;
    }
    if (e.frames >= 0) {
      const auto first = frames_.begin() + e.frames;
      const int32_t moved = static_cast<int32_t>(frames.size());
      frames.insert(frames.end(), first, first + 1 + static_cast<int64_t>(*first));
      e.frames = moved;
    }
    if (e.meta >= 0) {
      metas.push_back(std::move(metas_[e.meta]));
      e.meta = static_cast<int32_t>(metas.size()) - 1;
    }
    kept.push_back(e);
    open_[k].index = static_cast<int64_t>(k);
  }
  events_.clear();
  for (const RawEvent& e : kept) events_.push() = e;
  texts_.clear();
  inputs_.clear();
  std::move(texts.begin(), texts.end(), std::back_inserter(texts_));
  std::move(inputs.begin(), inputs.end(), std::back_inserter(inputs_));
  frames_.assign(frames.begin(), frames.end());
  metas_ = std::move(metas);
}

}  // namespace tl::profiler::detail
