// distributed/distributed.h — torch.distributed's functions: the default process group (init_process_group over
// env://, tcp:// or file:// rendezvous), new_group, and the collectives on a group, which take global ranks.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "distributed/process_group.h"

namespace tl::distributed {

/// init_process_group's arguments after the backend, with PyTorch's defaults.
struct InitProcessGroupOptions {
  /// "env://" (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the environment, as tl-run and torchrun set
  /// them; rank 0 serves a TCPStore on MASTER_PORT), "tcp://host:port" (the same store, rank and world_size
  /// given here), "file://dir" (Gloo's FileStore: one file per key in directory dir, created when missing;
  /// PyTorch's FileStore is one file instead. Give each job a fresh directory), or "redis://host:port[/prefix]"
  /// (Gloo's RedisStore on a Redis server, keys under prefix/: Redis keeps them, so each job needs its own prefix).
  std::string init_method = "env://";
  /// How long the rendezvous and every collective wait for their peers.
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// -1: from WORLD_SIZE.
  int64_t world_size = -1;
  /// -1: from RANK.
  int64_t rank = -1;
};

/// Joins the default process group (torch.distributed.init_process_group); `backend` must be "gloo". Every
/// rank of the job calls it. Throws tl::Error for another backend, a second call before
/// destroy_process_group, a missing environment variable or argument (naming it), an unreachable Redis server
/// (naming host:port), a Redis prefix used before, a rank outside
/// [0, world_size), mismatched world sizes across ranks, a port in use on rank 0, or a rank that does
/// not join within the timeout (naming the rank and the store). A failed call leaves no group.
void init_process_group(const std::string& backend, const InitProcessGroupOptions& options = {});
/// Whether the default process group exists.
bool is_initialized();
/// Always true: the Gloo backend is built in.
bool is_available();
/// Leaves `group`, or (null) every group and the default one, closing their connections. Throws
/// tl::Error before init_process_group.
void destroy_process_group(const std::shared_ptr<ProcessGroup>& group = nullptr);

/// This process's rank in `group` (the default group when null); -1 when it is not a member.
int64_t get_rank(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The number of ranks in `group`; -1 when this process is not a member.
int64_t get_world_size(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The default group (PyTorch's torch.distributed.group.WORLD). Throws tl::Error before init_process_group.
std::shared_ptr<ProcessGroup> default_group();
/// "gloo".
std::string get_backend(const std::shared_ptr<ProcessGroup>& group = nullptr);

/// A group of the given global ranks (all when empty), in that order (torch.distributed.new_group). Every
/// rank of the default group calls it, members or not; a non-member gets a group it is not in, on which
/// every collective warns and does nothing, as PyTorch's GroupMember.NON_GROUP_MEMBER. Throws tl::Error
/// for a rank outside the default group or repeated.
std::shared_ptr<ProcessGroup> new_group(const std::vector<int64_t>& ranks = {},
                                        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

/// The collectives of torch.distributed on `group` (the default one when null). With async_op they return
/// the Work to wait for; otherwise they wait and return null. A failure is a tl::Error from wait() (or
/// from the call itself when not async), naming the op and the rank. Ranks (src, dst) are global.
std::shared_ptr<Work> all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                                 const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
std::shared_ptr<Work> broadcast(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group = nullptr,
                                bool async_op = false);
/// tensor_list[r] receives rank r's `tensor`.
std::shared_ptr<Work> all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                 const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
/// `output` receives the reduction of every rank's input_list[this rank].
std::shared_ptr<Work> reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list,
                                     ReduceOp op = ReduceOp::SUM, const std::shared_ptr<ProcessGroup>& group = nullptr,
                                     bool async_op = false);
std::shared_ptr<Work> barrier(const std::shared_ptr<ProcessGroup>& group = nullptr, bool async_op = false);
/// Point to point: send and recv wait; isend and irecv return the Work. recv returns the sender's rank.
void send(const Tensor& tensor, int64_t dst, const std::shared_ptr<ProcessGroup>& group = nullptr, int64_t tag = 0);
int64_t recv(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group = nullptr, int64_t tag = 0);
std::shared_ptr<Work> isend(const Tensor& tensor, int64_t dst, const std::shared_ptr<ProcessGroup>& group = nullptr,
                            int64_t tag = 0);
std::shared_ptr<Work> irecv(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group = nullptr,
                            int64_t tag = 0);

}  // namespace tl::distributed
