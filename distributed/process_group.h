// distributed/process_group.h — ProcessGroup (c10d's ProcessGroupGloo): collectives on CPU tensors over Gloo's
// own algorithms, run in issue order on the group's worker thread; Work is the handle each call returns. Profiled,
// each call records PyTorch's record_param_comms scope where it is issued and its gloo:* scope where it runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/param_comms.h"
#include "core/tensor.h"

namespace gloo {
class Context;
namespace rendezvous {
class Store;
}  // namespace rendezvous
}  // namespace gloo

namespace tl::distributed {

/// torch.distributed.ReduceOp. AVG is SUM divided by the group's size (floating dtypes only; PyTorch 1.13's
/// Gloo backend refuses AVG, its NCCL backend computes it so).
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };
/// "SUM", "AVG", ... as PyTorch prints ReduceOp.SUM.
const char* reduce_op_name(ReduceOp op);

/// PyTorch's default_pg_timeout (30 minutes): how long a rendezvous or collective waits for its peers.
inline constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(30);

/// An operation in flight (c10d's Work, what async_op=True returns). wait() blocks until it finished and
/// rethrows its tl::Error when it failed. Thread-safe.
class Work {
 public:
  virtual ~Work() = default;
  bool is_completed() const;
  /// Whether it finished without error; throws tl::Error before it finished (as PyTorch's isSuccess).
  bool is_success() const;
  /// Blocks until the operation finished, rethrowing its failure; with a timeout, throws tl::Error when it
  /// has not finished by then. Returns true (as PyTorch's Work::wait).
  virtual bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());
  /// Marks the work finished (with `error` when it failed) and wakes its waiters.
  void finish(std::exception_ptr error = nullptr);

 protected:
  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool completed_ = false;
  std::exception_ptr error_;
};

/// Who a group is in its job, as PyTorch's profiler names it (record_param_comms' "Process Group Name",
/// "Process Group Description", "Process Group Ranks"): "0", "default_pg" and every rank for init_process_group's
/// group; "1", "2", ... in creation order, "undefined" and the members' global ranks for new_group's.
struct GroupDescription {
  std::string name = "0";
  std::string desc = "default_pg";
  std::vector<int64_t> global_ranks;  ///< empty: 0, 1, ..., size - 1
};

/// A group of processes joined through a store (c10d's ProcessGroupGloo): rank() of size() over a Gloo TCP
/// full mesh. Each collective checks its tensors (defined, contiguous, not quantized; shapes and dtypes
/// where the call sees them) and throws tl::Error at the call; the work itself runs on the group's worker
/// thread in issue order, so every rank must issue the group's collectives in the same order, as in
/// PyTorch. A peer that fails or never arrives makes the work fail with tl::Error within the timeout.
/// Ranks here are the group's own (0..size()-1).
///
/// Under a profile, each call opens PyTorch 2.x's record_param_comms scope on the calling thread (with Kineto's
/// args: "Collective name" allreduce, broadcast, all_gather, reduce_scatter, barrier, send or recv; "dtype", "In
/// msg nelems", "Out msg nelems", "Group size", the group's names and ranks, "Rank", "Seq"), and the thread that
/// runs the work records it as ProcessGroupGloo does, "gloo:all_reduce", "gloo:broadcast", "gloo:all_gather",
/// "gloo:reduce_scatter", "gloo:barrier", "gloo:send", "gloo:recv", under its own thread id in the profile of the
/// thread that issued it (core/scope_relay.h).
class ProcessGroup {
 public:
  /// Joins the group: every rank publishes its world size in `store` (which all ranks share; give a
  /// group its own prefix; it is used only during the call), checks everyone's (a mismatch is a tl::Error naming both values), then Gloo
  /// connects every pair, listening on `hostname`'s address (GLOO_SOCKET_IFNAME, when set, names the
  /// interface instead, as in PyTorch). `store_name` names the store in errors. Throws tl::Error for a rank
  /// outside [0, size), a rank that does not join within `timeout` (naming it), or a failed connection.
  ProcessGroup(gloo::rendezvous::Store& store, const std::string& store_name, int64_t rank, int64_t size,
               std::chrono::milliseconds timeout, const std::string& hostname, GroupDescription description = {});
  /// The handle a process that is not in a group gets from new_group (PyTorch's NON_GROUP_MEMBER): rank()
  /// -1, and every operation throws tl::Error.
  struct NonMember {};
  ProcessGroup(NonMember, int64_t size);
  /// Finishes the queued work, then closes the connections.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int64_t rank() const { return rank_; }
  int64_t size() const { return size_; }
  /// "gloo", as pg.name() says in PyTorch.
  std::string name() const { return "gloo"; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  const GroupDescription& description() const { return description_; }

  /// Reduces `tensor` element-wise across the group in place (every rank gets the result).
  std::shared_ptr<Work> allreduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM);
  /// Copies root's `tensor` into every rank's `tensor`.
  std::shared_ptr<Work> broadcast(const Tensor& tensor, int64_t root);
  /// outputs[r] receives rank r's `input`; size() outputs, each of input's shape and dtype.
  std::shared_ptr<Work> allgather(const std::vector<Tensor>& outputs, const Tensor& input);
  /// `output` receives the reduction over ranks of their inputs[rank()]; size() inputs of output's shape.
  std::shared_ptr<Work> reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                       ReduceOp op = ReduceOp::SUM);
  /// Returns when every rank has reached it.
  std::shared_ptr<Work> barrier();
  /// Sends `tensor` to rank `dst`; its recv with the same tag (in [0, 2^31)) receives it, in posting order. Runs at once on a thread
  /// of its own, not queued: the two ranks first exchange the dtype and element count they pass, and a difference
  /// fails both the send and the recv with a tl::Error naming both; then the data moves.
  std::shared_ptr<Work> send(const Tensor& tensor, int64_t dst, int64_t tag = 0);
  /// Receives into `tensor` what rank `src` sends with `tag` (as send).
  std::shared_ptr<Work> recv(const Tensor& tensor, int64_t src, int64_t tag = 0);

 private:
  /// What a rank calls: a collective's name, and the dtype, element count and op or root it passes. The
  /// ranks compare theirs before each collective (Gloo would abort the process on some mismatches).
  struct Call {
    const char* name;
    DType dtype = DType::Float32;
    int64_t numel = 0;
    int64_t detail = 0;  ///< the ReduceOp, or the broadcast's root
  };
  /// Queues `run` for the worker thread, after the ranks agree on `call` (a disagreement fails the work), inside
  /// record_param_comms with `in_nelems` and `out_nelems`.
  std::shared_ptr<Work> enqueue(const Call& call, int64_t in_nelems, int64_t out_nelems,
                                std::function<void(uint32_t tag)> run);
  /// What record_param_comms says of a call of `collective` (PyTorch's name) numbered `seq` in this group.
  ParamComms param_comms(const char* collective, DType dtype, int64_t in_nelems, int64_t out_nelems, int64_t seq) const;
  /// Throws tl::Error naming the first rank whose call differs from this one's.
  void agree(const Call& call, uint32_t tag);
  void work_loop();
  /// send (sending) or recv with `peer`, posted now.
  std::shared_ptr<Work> transfer(const Tensor& tensor, int64_t peer, int64_t tag, bool sending);
  void check_member(const char* what) const;
  /// `error` (Gloo's), led by the rank whose process has exited when one on this machine has.
  std::string blame(const std::string& error) const;
  void check_peer(const char* what, const char* role, int64_t peer) const;

  int64_t rank_;
  int64_t size_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::Context> context_;
  GroupDescription description_;
  std::map<std::tuple<int64_t, int64_t, bool>, uint64_t> transfers_;  ///< sends (true) and recvs per (peer, tag)
  int64_t transfers_posted_ = 0;  ///< sends and recvs, numbered apart from the collectives as c10d's p2p sequence
  std::vector<std::string> peers_;  ///< by rank: its process, "hostname pid" (empty: this rank)
  uint32_t next_tag_ = 0;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tl::distributed
