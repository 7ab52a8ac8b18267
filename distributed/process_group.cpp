// distributed/process_group.cpp — ProcessGroup over Gloo: a rendezvous through the store, a TCP full mesh,
// and each collective as one call of Gloo's algorithm on the tensors' memory, run by the worker thread.
#include "distributed/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/dtype.h"
#include "core/error.h"
#include "core/record_function.h"
#include "core/scope_relay.h"
#include "core/storage.h"

namespace tl::distributed {
namespace {

using ReduceFunction = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFunction reduce_function(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return static_cast<ReduceFunction>(&gloo::sum<T>);
    case ReduceOp::PRODUCT: return static_cast<ReduceFunction>(&gloo::product<T>);
    case ReduceOp::MIN: return static_cast<ReduceFunction>(&gloo::min<T>);
    case ReduceOp::MAX: return static_cast<ReduceFunction>(&gloo::max<T>);
  }
  TL_INTERNAL_ASSERT(false, "unknown ReduceOp");
}

/// Gloo's algorithm object for the reduce-scatter (it has no functional form).
template <typename T>
const gloo::ReductionFunction<T>* reduction_function(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return gloo::ReductionFunction<T>::sum;
    case ReduceOp::PRODUCT: return gloo::ReductionFunction<T>::product;
    case ReduceOp::MIN: return gloo::ReductionFunction<T>::min;
    case ReduceOp::MAX: return gloo::ReductionFunction<T>::max;
  }
  TL_INTERNAL_ASSERT(false, "unknown ReduceOp");
}

void check_tensor(const char* what, const Tensor& t) {
  TL_CHECK(t.defined(), what, ": expected a defined tensor");
  TL_CHECK(!t.is_proxy(), what, ": cannot run on a traced (proxy) tensor");
  TL_CHECK(!t.is_quantized(), what, ": quantized tensors are not supported, got dtype ", t.dtype());
  TL_CHECK(t.is_contiguous(), what, ": expected a contiguous tensor, got sizes ", t.shape(), " and strides ",
           t.strides());
}

void check_like(const char* what, const char* name, size_t i, const Tensor& t, const Tensor& like) {
  check_tensor(what, t);
  TL_CHECK(t.dtype() == like.dtype() && t.shape() == like.shape(), what, ": ", name, "[", i,
           "] must have the shape and dtype of the tensor, ", like.shape(), " ", like.dtype(), ", got ", t.shape(),
           " ", t.dtype());
}

void check_op(const char* what, ReduceOp op, const Tensor& t) {
  TL_CHECK(op != ReduceOp::AVG || is_floating_point(t.dtype()), what, ": ReduceOp.AVG needs a floating dtype, got ",
           t.dtype());
}

/// x /= n in place: AVG after Gloo's sum.
void divide(const Tensor& t, int64_t n) {
  TL_DISPATCH_FLOATING_TYPES(t.dtype(), "AVG", [&] {
    auto* p = static_cast<scalar_t*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<scalar_t>(static_cast<double>(p[i]) / n);
  });
}

/// Gloo writes to its sockets without MSG_NOSIGNAL, so a peer that exits would kill this process with SIGPIPE
/// instead of failing the collective with a tl::Error. CPython ignores SIGPIPE at startup, so PyTorch's ranks never
/// see it; a process here ignores it too once it joins a group, unless it installed a handler of its own.
void ignore_sigpipe() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
}

std::string hostname_of_this_machine() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

/// Whether process `pid` on this machine is gone: no such process, or a zombie its parent has not reaped yet.
bool has_exited(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(") ");
  return paren != std::string::npos && paren + 2 < line.size() && (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

std::shared_ptr<gloo::transport::Device> make_device(const std::string& hostname) {
  gloo::transport::tcp::attr attr;
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface != nullptr && *iface != '\0') {
    attr.iface = iface;
  } else {
    attr.hostname = hostname;
  }
  try {
    return gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    TL_CHECK(false, "init_process_group: Gloo cannot open a TCP device on ",
             attr.iface.empty() ? attr.hostname : "interface " + attr.iface, ": ", e.what());
  }
}

void publish(gloo::rendezvous::Store& store, const std::string& key, int64_t rank, const std::string& value,
             const std::string& store_name) {
  try {
    store.set(key + std::to_string(rank), std::vector<char>(value.begin(), value.end()));
  } catch (const std::exception& e) {
    TL_CHECK(false, "init_process_group: rank ", rank, " cannot write to the store (", store_name, "): ", e.what());
  }
}

/// What rank `peer` published under `key`, once it has; tl::Error naming the rank when it has not by `deadline`.
std::string peer_value(gloo::rendezvous::Store& store, const std::string& key, int64_t peer, int64_t size,
                       std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout,
                       const std::string& store_name) {
  const std::string name = key + std::to_string(peer);
  try {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    store.wait({name}, std::max(left, std::chrono::milliseconds(1)));
    const std::vector<char> value = store.get(name);
    return std::string(value.begin(), value.end());
  } catch (const std::exception& e) {
    TL_CHECK(std::chrono::steady_clock::now() < deadline, "init_process_group: rank ", peer, " of world_size ", size,
             " did not join within ", timeout.count(), " ms (store ", store_name, ")");
    TL_CHECK(false, "init_process_group: waiting for rank ", peer, " failed (store ", store_name, "): ", e.what());
  }
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() const {
  std::lock_guard<std::mutex> lock(mutex_);
  TL_CHECK(completed_, "Work::is_success: invalid call before the work has completed");
  return error_ == nullptr;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    TL_CHECK(done_.wait_for(lock, timeout, [&] { return completed_; }), "Work::wait: the operation timed out after ",
             timeout.count(), " ms");
  } else {
    done_.wait(lock, [&] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = true;
    error_ = std::move(error);
  }
  done_.notify_all();
}

ProcessGroup::ProcessGroup(gloo::rendezvous::Store& store, const std::string& store_name, int64_t rank,
                           int64_t size, std::chrono::milliseconds timeout, const std::string& hostname,
                           GroupDescription description)
    : rank_(rank), size_(size), timeout_(timeout), description_(std::move(description)) {
  TL_CHECK(size >= 1, "init_process_group: world_size must be at least 1, got ", size);
  TL_CHECK(rank >= 0 && rank < size, "init_process_group: rank must be in [0, world_size = ", size, "), got ", rank);
  if (description_.global_ranks.empty())
    for (int64_t r = 0; r < size; ++r) description_.global_ranks.push_back(r);
  TL_INTERNAL_ASSERT(static_cast<int64_t>(description_.global_ranks.size()) == size,
                     "ProcessGroup: a description of ", description_.global_ranks.size(), " ranks for a group of ", size);
  TL_CHECK(timeout.count() > 0, "init_process_group: timeout must be positive, got ", timeout.count(), " ms");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string mine = std::to_string(size);
  // Every rank compares its world size with rank 0's (ranks that agree with rank 0 agree with each other); rank
  // 0 compares only after the others have read its value, so both sides of a mismatch report it, even when rank
  // 0's process ends (taking a TCPStore with it) at its error.
  publish(store, "world_size/", rank, mine, store_name);
  for (int64_t peer = rank == 0 ? 1 : 0; peer < (rank == 0 ? size : 1); ++peer) {
    if (rank == 0) peer_value(store, "world_size_read/", peer, size, deadline, timeout, store_name);
    const std::string theirs = peer_value(store, "world_size/", peer, size, deadline, timeout, store_name);
    if (rank != 0) publish(store, "world_size_read/", rank, "1", store_name);
    TL_CHECK(theirs == mine, "init_process_group: world_size mismatch: rank ", rank, " was given world_size ", size,
             " but rank ", peer, " world_size ", theirs);
  }
  ignore_sigpipe();
  auto context = std::make_shared<gloo::rendezvous::Context>(static_cast<int>(rank), static_cast<int>(size));
  context->setTimeout(timeout);
  auto device = make_device(hostname);
  try {
    context->connectFullMesh(store, device);
  } catch (const std::exception& e) {
    TL_CHECK(false, "init_process_group: rank ", rank, " could not connect to its peers (store ", store_name,
             "): ", e.what());
  }
  // As PyTorch's store-based barrier: no rank leaves init (and may exit) while another is still connecting. Each
  // rank's value is its process ("hostname pid"), so that a failure can name a rank that has exited.
  publish(store, "connected/", rank, detail::str_cat(hostname_of_this_machine(), " ", ::getpid()), store_name);
  peers_.assign(static_cast<size_t>(size), "");
  for (int64_t peer = 0; peer < size; ++peer)
    if (peer != rank)
      peers_[static_cast<size_t>(peer)] = peer_value(store, "connected/", peer, size, deadline, timeout, store_name);
  context_ = std::move(context);
  worker_ = std::thread([this] { work_loop(); });
}

ProcessGroup::ProcessGroup(NonMember, int64_t size) : rank_(-1), size_(size), timeout_(kDefaultTimeout) {}

ProcessGroup::~ProcessGroup() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  worker_.join();
}

void ProcessGroup::work_loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

void ProcessGroup::check_member(const char* what) const {
  TL_CHECK(context_ != nullptr, what, ": this process is not a member of the group");
}

namespace {

/// A collective by the number the ranks exchange: our name (errors, agreement), PyTorch's record_param_comms
/// "Collective name" and ProcessGroupGloo's profiling title.
struct Collective {
  std::string_view call;
  const char* comms;
  const char* title;
};
constexpr std::array<Collective, 5> kCollectives = {{{"allreduce", "allreduce", "gloo:all_reduce"},
                                                     {"broadcast", "broadcast", "gloo:broadcast"},
                                                     {"allgather", "all_gather", "gloo:all_gather"},
                                                     {"reduce_scatter", "reduce_scatter", "gloo:reduce_scatter"},
                                                     {"barrier", "barrier", "gloo:barrier"}}};

int64_t collective_index(const char* call) {
  const auto it = std::find_if(kCollectives.begin(), kCollectives.end(), [&](const Collective& c) { return c.call == call; });
  TL_INTERNAL_ASSERT(it != kCollectives.end(), "unknown collective ", call);
  return it - kCollectives.begin();
}

}  // namespace

ParamComms ProcessGroup::param_comms(const char* collective, DType dtype, int64_t in_nelems, int64_t out_nelems,
                                     int64_t seq) const {
  ParamComms comms{.collective = collective, .dtype = dtype, .in_nelems = in_nelems, .out_nelems = out_nelems,
                   .group_size = size_, .group_name = description_.name, .group_desc = description_.desc,
                   .group_ranks = description_.global_ranks, .rank = rank_, .seq = seq};
  // c10d names the members by a start and a stride when they are evenly spaced (NCCL's globalRankStart/Stride).
  const std::vector<int64_t>& ranks = description_.global_ranks;
  const int64_t stride = ranks.size() > 1 ? ranks[1] - ranks[0] : 1;
  bool even = stride > 0;
  for (size_t i = 1; i < ranks.size() && even; ++i) even = ranks[i] - ranks[i - 1] == stride;
  if (even) {
    comms.global_rank_start = ranks.front();
    comms.global_rank_stride = stride;
  }
  return comms;
}

std::shared_ptr<Work> ProcessGroup::enqueue(const Call& call, int64_t in_nelems, int64_t out_nelems,
                                            std::function<void(uint32_t tag)> run) {
  auto work = std::make_shared<Work>();
  const Collective& names = kCollectives[static_cast<size_t>(collective_index(call.name))];
  // The profiles of this thread follow the work to the worker thread (empty when nothing is profiled).
  CarriedScopes carried = CarriedScopes::capture();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint32_t tag = 2 * next_tag_++;  // the agreement uses tag, the collective tag + 1
    const ParamComms comms = param_comms(names.comms, call.dtype, in_nelems, out_nelems, next_tag_);
    ParamCommsGuard current(comms);
    RecordFunction scope(kParamCommsScope, RecordScope::Function);
    queue_.push_back([this, work, tag, call, title = names.title, carried = std::move(carried), run = std::move(run)] {
      try {
        const CarriedScopes::Installed profiled(carried);
        RecordFunction scope(title);
        if (size_ > 1) agree(call, tag);
        run(tag + 1);
        scope.end();  // before the waiters wake: one may end the profile at once
        work->finish();
      } catch (const Error& e) {
        work->finish(std::make_exception_ptr(
            Error(detail::str_cat(call.name, ": rank ", rank_, " of ", size_, " failed: ", e.what()))));
      } catch (const std::exception& e) {  // Gloo's: a connection or a timeout
        work->finish(std::make_exception_ptr(
            Error(detail::str_cat(call.name, ": rank ", rank_, " of ", size_, " failed: ", blame(e.what())))));
      }
    });
  }
  queued_.notify_one();
  return work;
}

namespace {

/// "allreduce of 4 x torch.float32 (SUM)", from a call's four numbers.
std::string describe_call(const std::array<int64_t, 4>& c) {
  const std::string name(c[0] >= 0 && c[0] < static_cast<int64_t>(kCollectives.size()) ? kCollectives[c[0]].call
                                                                                      : std::string_view("?"));
  if (name == "barrier") return name;
  std::string text = detail::str_cat(name, " of ", c[2], " x ", static_cast<DType>(c[1]));
  if (name == "allreduce" || name == "reduce_scatter")
    text += detail::str_cat(" (", reduce_op_name(static_cast<ReduceOp>(c[3])), ")");
  if (name == "broadcast") text += detail::str_cat(" from rank ", c[3]);
  return text;
}

}  // namespace

void ProcessGroup::agree(const Call& call, uint32_t tag) {
  std::array<int64_t, 4> mine = {collective_index(call.name), static_cast<int64_t>(call.dtype), call.numel, call.detail};
  std::vector<std::array<int64_t, 4>> all(static_cast<size_t>(size_));
  gloo::AllgatherOptions options(context_);
  options.setTag(tag);
  options.setTimeout(timeout_);
  options.setInput(mine.data(), mine.size());
  options.setOutput(all.data()->data(), all.size() * mine.size());
  gloo::allgather(options);
  for (size_t r = 0; r < all.size(); ++r)
    TL_CHECK(all[r] == mine, "the ranks' calls differ: rank ", rank_, " called ", describe_call(mine), " but rank ", r,
             " ", describe_call(all[r]));
}

std::string ProcessGroup::blame(const std::string& error) const {
  // A peer's exit closes its connections before its process is gone: look for up to a second.
  const std::string here = hostname_of_this_machine();
  for (int attempt = 0; attempt < 50; ++attempt) {
    for (size_t peer = 0; peer < peers_.size(); ++peer) {
      std::istringstream process(peers_[peer]);
      std::string host;
      pid_t pid = 0;
      if (process >> host >> pid && host == here && has_exited(pid))
        return detail::str_cat("rank ", peer, " (pid ", pid, ") has exited: ", error);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return error;
}

void ProcessGroup::check_peer(const char* what, const char* role, int64_t peer) const {
  TL_CHECK(peer >= 0 && peer < size_, what, ": ", role, " must be a rank of the group, in [0, ", size_, "), got ",
           peer);
}

std::shared_ptr<Work> ProcessGroup::allreduce(const Tensor& tensor, ReduceOp op) {
  check_member("allreduce");
  check_tensor("allreduce", tensor);
  check_op("allreduce", op, tensor);
  return enqueue({"allreduce", tensor.dtype(), tensor.numel(), static_cast<int64_t>(op)}, tensor.numel(), tensor.numel(),
                 [this, tensor, op](uint32_t tag) {
    if (tensor.numel() == 0) return;
    gloo::AllreduceOptions options(context_);
    options.setTag(tag);
    options.setTimeout(timeout_);
    TL_DISPATCH_ALL_TYPES(tensor.dtype(), "allreduce", [&] {
      options.setOutput(static_cast<scalar_t*>(tensor.raw_data()), static_cast<size_t>(tensor.numel()));
      options.setReduceFunction(reduce_function<scalar_t>(op));
    });
    gloo::allreduce(options);
    if (op == ReduceOp::AVG) divide(tensor, size_);
    tensor.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::broadcast(const Tensor& tensor, int64_t root) {
  check_member("broadcast");
  check_tensor("broadcast", tensor);
  check_peer("broadcast", "root", root);
  return enqueue({"broadcast", tensor.dtype(), tensor.numel(), root}, tensor.numel(), tensor.numel(),
                 [this, tensor, root](uint32_t tag) {
    if (tensor.nbytes() == 0) return;
    gloo::BroadcastOptions options(context_);
    options.setTag(tag);
    options.setTimeout(timeout_);
    options.setRoot(static_cast<int>(root));
    options.setOutput(static_cast<char*>(tensor.raw_data()), static_cast<size_t>(tensor.nbytes()));
    gloo::broadcast(options);
    if (root != rank_) tensor.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::allgather(const std::vector<Tensor>& outputs, const Tensor& input) {
  check_member("allgather");
  check_tensor("allgather", input);
  TL_CHECK(static_cast<int64_t>(outputs.size()) == size_, "allgather: expected one output per rank, ", size_,
           ", got ", outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) check_like("allgather", "outputs", i, outputs[i], input);
  return enqueue({"allgather", input.dtype(), input.numel()}, input.numel(), input.numel() * size_,
                 [this, outputs, input](uint32_t tag) {
    const auto bytes = static_cast<size_t>(input.nbytes());
    if (bytes == 0) return;
    std::vector<char> gathered(bytes * static_cast<size_t>(size_));
    gloo::AllgatherOptions options(context_);
    options.setTag(tag);
    options.setTimeout(timeout_);
    options.setInput(static_cast<char*>(input.raw_data()), bytes);
    options.setOutput(gathered.data(), gathered.size());
    gloo::allgather(options);
    for (size_t r = 0; r < outputs.size(); ++r) {
      std::memcpy(outputs[r].raw_data(), gathered.data() + r * bytes, bytes);
      outputs[r].storage()->bump_version();
    }
  });
}

std::shared_ptr<Work> ProcessGroup::reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                                   ReduceOp op) {
  check_member("reduce_scatter");
  check_tensor("reduce_scatter", output);
  check_op("reduce_scatter", op, output);
  TL_CHECK(output.dtype() != DType::Bool && output.dtype() != DType::UInt8 && output.dtype() != DType::Int8,
           "reduce_scatter: not implemented for ", output.dtype(), " (Gloo's reduce-scatter computes in float, "
           "double, int64, int32 and bfloat16)");
  TL_CHECK(static_cast<int64_t>(inputs.size()) == size_, "reduce_scatter: expected one input per rank, ", size_,
           ", got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) check_like("reduce_scatter", "inputs", i, inputs[i], output);
  return enqueue({"reduce_scatter", output.dtype(), output.numel(), static_cast<int64_t>(op)}, output.numel() * size_,
                 output.numel(), [this, output, inputs, op](uint32_t) {
    const auto count = static_cast<size_t>(output.numel());
    if (count == 0) return;
    TL_DISPATCH_NUMERIC_TYPES(output.dtype(), "reduce_scatter", [&] {
      std::vector<scalar_t> all(count * inputs.size());
      for (size_t r = 0; r < inputs.size(); ++r)
        std::memcpy(all.data() + r * count, inputs[r].raw_data(), count * sizeof(scalar_t));
      gloo::ReduceScatterHalvingDoubling<scalar_t> algorithm(context_, {all.data()}, static_cast<int>(all.size()),
                                                             std::vector<int>(inputs.size(), static_cast<int>(count)),
                                                             reduction_function<scalar_t>(op));
      algorithm.run();
      std::memcpy(output.raw_data(), all.data(), count * sizeof(scalar_t));
    });
    if (op == ReduceOp::AVG) divide(output, size_);
    output.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::barrier() {
  check_member("barrier");
  return enqueue({"barrier", DType::UInt8}, 0, 0, [this](uint32_t tag) {
    gloo::BarrierOptions options(context_);
    options.setTag(tag);
    options.setTimeout(timeout_);
    gloo::barrier(options);
  });
}

std::shared_ptr<Work> ProcessGroup::send(const Tensor& tensor, int64_t dst, int64_t tag) {
  return transfer(tensor, dst, tag, true);
}

std::shared_ptr<Work> ProcessGroup::recv(const Tensor& tensor, int64_t src, int64_t tag) {
  return transfer(tensor, src, tag, false);
}

std::shared_ptr<Work> ProcessGroup::transfer(const Tensor& tensor, int64_t peer, int64_t tag, bool sending) {
  const char* what = sending ? "send" : "recv";
  check_member(what);
  check_tensor(what, tensor);
  check_peer(what, sending ? "dst" : "src", peer);
  TL_CHECK(peer != rank_, what, ": a rank cannot ", sending ? "send to" : "receive from", " itself (rank ", rank_, ")");
  TL_CHECK(tag >= 0 && tag <= std::numeric_limits<int32_t>::max(), what, ": tag must be in [0, 2^31), got ", tag);
  // The k-th send to a peer with a tag meets that peer's k-th recv from this rank with the tag, as Gloo matches
  // posts in order; their three messages get slots of their own, (tag, k, message), so transfers that run at once
  // on their threads cannot take each other's messages.
  uint64_t k = 0;
  int64_t seq = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    k = transfers_[{peer, tag, sending}]++ % (uint64_t{1} << 22);
    seq = ++transfers_posted_;
  }
  const ParamComms comms = param_comms(what, tensor.dtype(), tensor.numel(), tensor.numel(), seq);
  const ParamCommsGuard current(comms);
  RecordFunction scope(kParamCommsScope, RecordScope::Function);
  CarriedScopes carried = CarriedScopes::capture();
  const uint64_t slot = ((static_cast<uint64_t>(tag) << 22 | k) << 2);
  auto work = std::make_shared<Work>();
  const std::string name = detail::str_cat(what, ": rank ", rank_, sending ? " to " : " from ", peer);
  const int64_t sender = sending ? rank_ : peer, receiver = sending ? peer : rank_;
  // Its own thread, so that a send and a recv posted together on two ranks (a ring) both make progress: the
  // descriptions go first (Gloo aborts the process when a message is longer than the buffer posted for it).
  std::thread([work, context = context_, tensor, peer = static_cast<int>(peer), slot, sending, name, sender, receiver,
               timeout = timeout_, carried = std::move(carried)] {
    try {
      const CarriedScopes::Installed profiled(carried);
      RecordFunction scope(sending ? "gloo:send" : "gloo:recv");
      std::array<int64_t, 2> mine = {static_cast<int64_t>(tensor.dtype()), tensor.numel()}, theirs = {};
      auto header = context->createUnboundBuffer(sending ? mine.data() : theirs.data(), sizeof mine);
      auto reply = context->createUnboundBuffer(sending ? theirs.data() : mine.data(), sizeof mine);
      if (sending) {
        header->send(peer, slot);
        reply->recv(peer, slot + 1);
        header->waitSend(timeout);
        reply->waitRecv(timeout);
      } else {
        header->recv(peer, slot);
        header->waitRecv(timeout);
        reply->send(peer, slot + 1);
        reply->waitSend(timeout);
      }
      const auto& sent = sending ? mine : theirs;
      const auto& received = sending ? theirs : mine;
      TL_CHECK(sent == received, "the sizes differ: rank ", sender, " sends ", sent[1], " x ",
               static_cast<DType>(sent[0]), " but rank ", receiver, " receives ", received[1], " x ",
               static_cast<DType>(received[0]));
      if (tensor.nbytes() > 0) {
        auto payload = context->createUnboundBuffer(tensor.raw_data(), static_cast<size_t>(tensor.nbytes()));
        if (sending) {
          payload->send(peer, slot + 2);
          payload->waitSend(timeout);
        } else {
          payload->recv(peer, slot + 2);
          payload->waitRecv(timeout);
          tensor.storage()->bump_version();
        }
      }
      scope.end();  // before the waiter wakes
      work->finish();
    } catch (const std::exception& e) {
      work->finish(std::make_exception_ptr(Error(detail::str_cat(name, ": ", e.what()))));
    }
  }).detach();
  return work;
}

}  // namespace tl::distributed
