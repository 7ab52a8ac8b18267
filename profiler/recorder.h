// profiler/recorder.h — (internal) the collector behind Profile: a dispatch hook (op events), an
// allocation hook (memory events), the scope observer (RecordFunction scopes) and the scope relay (the
// scopes of work this thread queues for another, core/scope_relay.h), installed on one thread. Only that
// thread writes to it, so it needs no locks and concurrent profiles never share a buffer; other threads'
// scopes arrive through RelayedEvents, which has its own lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/record_function.h"
#include "core/scope_relay.h"
#include "core/storage.h"
#include "profiler/event_list.h"
#include "profiler/profile.h"
#include "profiler/relayed_events.h"

namespace tl::profiler::detail {

class ModuleScopes;

class Recorder final : public DispatchHook, public AllocationHook, public ScopeObserver, public ScopeRelay {
 public:
  explicit Recorder(const ProfileOptions& options);
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Installs the hooks on the calling thread, which becomes the recording thread.
  void install();
  /// Removes the hooks (on the recording thread); scopes still open stay open.
  void uninstall();
  bool installed() const { return installed_; }
  /// Makes every hook a no-op (for a recorder left installed on a thread it can no longer be
  /// removed from).
  void disable();
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  /// Opens a scope event now and returns its id (0 when disabled).
  uint64_t open_event(std::string name, EventKind kind, const ScopeLink& link = {});
  /// A RecordFunction scope: open_event with the kind `scope` maps to, its arguments' shapes
  /// (record_shapes) when it has them, and for record_param_comms the thread's ParamComms as Kineto's args.
  uint64_t open_scope(std::string_view name, RecordScope scope, const ScopeLink& link,
                      const ScopeInputs* inputs) override;
  /// Closes the scope `id` now, and with it every scope opened inside it that is still open
  /// (so events stay nested). Unknown or already closed ids are ignored.
  void close_scope(uint64_t id) override;

  /// The events that started in [start_ns, end_ns] (those still open end at end_ns) and the
  /// memory events of that interval, as an EventList. Then forgets every closed event.
  EventList take(int64_t start_ns, int64_t end_ns);
  /// Forgets every closed event, all memory events and the relayed events (the warmup's).
  void discard();
  /// Forgets everything, open scopes included: a scope opened before this point closes nothing.
  void reset();

  void before(const OpCall& call) override;
  void after(const OpCall& call, const TensorList* outputs) override;
  void on_allocation(const void* ptr, int64_t bytes_delta, int64_t bytes_in_use) override;
  /// A stand-in recording into this profile's relayed events (null when disabled).
  std::shared_ptr<ScopeObserver> observer_for_other_thread() override;

 private:
  /// One event as recorded: 72 bytes, no allocation for ops (their names are the registry's
  /// static strings); FunctionEvents are built from these only when a window is taken.
  struct RawEvent {
    const char* op_name;  ///< ops: the aten name; scopes: null, name in texts_[text]
    int64_t start_ns;
    int64_t end_ns;
    int64_t parent;
    int64_t flops;
    int64_t sequence_nr;
    int32_t text;    ///< index into texts_, or -1
    int32_t inputs;  ///< index into inputs_ (record_shapes), or -1
    int32_t frames;  ///< with_stack: index into frames_ of the frame count, the addresses after it; or -1
    int32_t meta;    ///< index into metas_ (record_param_comms' args), or -1
    uint32_t forward_thread;  ///< Linux thread ids fit in 32 bits (pid_max is at most 2^22)
    EventKind kind;
  };
  /// Fixed-size chunks: appending never moves recorded events, and clear() keeps the chunks so
  /// later windows reuse memory that is already mapped.
  class EventBuffer {
   public:
    int64_t size() const { return size_; }
    RawEvent& operator[](int64_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    const RawEvent& operator[](int64_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    RawEvent& push();
    void clear() { size_ = 0; }

   private:
    static constexpr int kChunkBits = 12;
    static constexpr int64_t kChunk = int64_t{1} << kChunkBits;
    std::vector<std::unique_ptr<RawEvent[]>> chunks_;
    int64_t size_ = 0;
  };
  struct Inputs {
    std::vector<Shape> shapes;
    std::vector<std::string> types;
  };
  struct Open {
    uint64_t id;
    int64_t index;
  };
  int64_t push_event(const char* op_name, EventKind kind, int64_t sequence_nr, uint64_t forward_thread);
  FunctionEvent materialize(const RawEvent& raw) const;
  void close_from(size_t position, int64_t end_ns);
  /// Forgets every closed event of this thread and all memory events.
  void forget_closed();
  void compact();

  ProfileOptions options_;
  std::atomic<bool> enabled_{true};
  bool installed_ = false;
  uint64_t thread_ = 0;
  EventBuffer events_;
  std::vector<std::string> texts_;
  std::vector<Inputs> inputs_;
  std::vector<uint64_t> frames_;  ///< per event with_stack: a count, then that many return addresses
  std::vector<std::vector<std::pair<std::string, std::string>>> metas_;
  std::shared_ptr<RelayedEvents> relayed_ = std::make_shared<RelayedEvents>();
  std::vector<MemoryEvent> memory_;
  std::vector<Open> open_;        ///< open events, outermost first
  /// An op in progress (before() without after()): its event's id, and where its ATen tree's open scopes
  /// (ops/aten_tree.h) start in tree_open_.
  struct OpInProgress {
    uint64_t id;
    size_t tree_open;
  };
  std::vector<OpInProgress> ops_;
  std::vector<uint64_t> tree_open_;  ///< ids of the ATen tree scopes kept open around kernels, innermost last
  int64_t overhead_ns_ = 0;
  std::unique_ptr<ModuleScopes> module_scopes_;
};

/// Marks the calling thread as profiled through `recorder`; throws tl::Error if another enabled
/// recorder holds it. A disabled one (its Profile was destroyed on another thread) is removed
/// and deleted here, on its own thread.
void claim_thread(Recorder* recorder);
/// Releases the calling thread if `recorder` holds it.
void release_thread(Recorder* recorder);

}  // namespace tl::profiler::detail
