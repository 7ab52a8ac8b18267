// distributed/ddp.h — tl::nn::parallel::DistributedDataParallel (torch.nn.parallel.DistributedDataParallel): wraps a
// module so that backward leaves every rank the gradients averaged over the process group, reduced bucket by
// bucket on the group's worker thread while backward goes on.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "nn/module.h"

namespace tl::nn::parallel {

/// torch.distributed.GradBucket: one bucket as a communication hook sees it.
class GradBucket {
 public:
  GradBucket(size_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters)
      : index_(index), is_last_(is_last), buffer_(std::move(buffer)), parameters_(std::move(parameters)) {}
  /// Its place in reduction order (0 is reduced first).
  size_t index() const { return index_; }
  bool is_last() const { return is_last_; }
  /// The bucket's gradients flattened, 1-D, of its dtype: the sum of this rank's, not divided by the group size
  /// (the hook averages, as PyTorch's do). The hook may change it in place.
  const Tensor& buffer() const { return buffer_; }
  /// Its parameters, in the order their gradients sit in buffer().
  const std::vector<Tensor>& parameters() const { return parameters_; }

 private:
  size_t index_;
  bool is_last_;
  Tensor buffer_;
  std::vector<Tensor> parameters_;
};

/// What a communication hook returns, PyTorch's torch.futures.Future[Tensor]: the work in flight and, called once
/// it has finished, the bucket's new gradients (a tensor of buffer()'s shape and dtype).
struct CommHookResult {
  std::shared_ptr<distributed::Work> work;
  std::function<Tensor()> value;
};
/// A communication hook (PyTorch's hook(state, bucket) -> Future; the state is what the function captures).
using CommHook = std::function<CommHookResult(const GradBucket&)>;

/// DistributedDataParallel's keyword arguments, with PyTorch 1.13's defaults.
struct DistributedDataParallelOptions {
  /// The group to average over; null: the default group (init_process_group's).
  std::shared_ptr<distributed::ProcessGroup> process_group;
  /// Broadcast the module's buffers (BatchNorm's running statistics) from rank 0 at the start of each forward
  /// that follows a synchronized one, as PyTorch does.
  bool broadcast_buffers = true;
  /// Bucket capacity in MiB; the first bucket (the last parameters) closes at 1 MiB whatever the cap, PyTorch's
  /// dist._DEFAULT_FIRST_BUCKET_BYTES, so the first all-reduce starts early.
  double bucket_cap_mb = 25;
  /// Find, after each forward, the parameters its outputs do not depend on (walking the autograd graph), and
  /// count them ready with a zero gradient, so their buckets still get reduced; a parameter no rank used
  /// keeps its .grad as it was.
  bool find_unused_parameters = false;
};

/// Wraps `module` (registered as the child "module": state_dict keys and print() as PyTorch's). At
/// construction rank 0's parameters and buffers are broadcast to every rank. During backward each parameter's
/// gradient, divided by the group size, is copied into its bucket as soon as its AccumulateGrad has run (a post
/// hook); a bucket whose gradients are all in is all-reduced asynchronously (buckets are launched in order, so
/// every rank issues the same collectives); when the last is launched, backward waits for all of them and
/// writes the averages into the parameters' .grad. Buckets hold one dtype each, as PyTorch 1.13's: without
/// find_unused_parameters the first iteration reduces one bucket per dtype, and the next forward rebuilds them in
/// the order rank 0's gradients arrived in (the first closing at 1 MiB, the others at bucket_cap_mb); with it they
/// are assigned once, from the parameters' order, and reduced last bucket first. Inside no_sync() gradients
/// accumulate locally; the next synchronized backward reduces the sum.
class DistributedDataParallel : public Module {
 public:
  /// Throws tl::Error before init_process_group (without a group in the options), for a null module, a module
  /// without parameters that require grad, bucket_cap_mb not positive, or when the ranks' parameters differ in
  /// count, shape or dtype (the broadcast's check names the first that differs).
  explicit DistributedDataParallel(std::shared_ptr<Module> module, DistributedDataParallelOptions options = {});
  ~DistributedDataParallel() override;

  /// Calls the wrapped module. With grad mode on and outside no_sync(): first throws tl::Error if the previous
  /// synchronized forward's backward left gradients unreduced (parameters that got no gradient, naming them:
  /// pass find_unused_parameters), then broadcasts the buffers, and readies the reducer for this backward.
  TensorList forward(Inputs inputs) override;
  std::string type_name() const override { return "DistributedDataParallel"; }
  ForwardSignature forward_signature() const override;

  /// ddp.register_comm_hook(state, hook): `hook` reduces every bucket instead of DDP's all-reduce of the
  /// gradients divided by the group size (the default_hooks below; the state is what it captures). Register it
  /// before the first backward. Throws tl::Error (PyTorch's text) when one is registered already.
  void register_comm_hook(CommHook hook);
  /// The wrapped module (PyTorch's ddp.module).
  std::shared_ptr<Module> module() const;
  /// The buckets in reduction order, each the indices (into module()->parameters() of those that require grad)
  /// of its parameters: the first iteration's until the forward after it rebuilds them (see the class).
  std::vector<std::vector<size_t>> bucket_indices() const;

  /// While alive (PyTorch's `with ddp.no_sync():`), forwards and backwards do not synchronize: gradients
  /// accumulate in .grad locally. Restores the previous mode when destroyed.
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& ddp);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSync no_sync() { return NoSync(*this); }

 private:
  class Reducer;
  std::shared_ptr<distributed::ProcessGroup> group_;
  bool broadcast_buffers_;
  bool require_backward_grad_sync_ = true;
  bool require_forward_param_sync_ = true;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace tl::nn::parallel

/// torch.distributed.algorithms.ddp_comm_hooks.default_hooks: each returns the hook with its process group (null:
/// the default group) as state, as `ddp.register_comm_hook(group, default_hooks.allreduce_hook)` passes it.
/// PyTorch's fp16_compress_hook has no counterpart: torchless has no float16 dtype.
namespace tl::distributed::algorithms::ddp_comm_hooks::default_hooks {

/// Divides the bucket by the group size and all-reduces it (SUM): what DDP does without a hook.
nn::parallel::CommHook allreduce_hook(std::shared_ptr<ProcessGroup> group = nullptr);
/// Compresses the bucket to bfloat16, divides it by the group size, all-reduces that (SUM, in bfloat16) and
/// writes the result back into the bucket: half the bytes on the wire, bfloat16's 8-bit mantissa.
nn::parallel::CommHook bf16_compress_hook(std::shared_ptr<ProcessGroup> group = nullptr);

}  // namespace tl::distributed::algorithms::ddp_comm_hooks::default_hooks
