// distributed/ddp.cpp — DistributedDataParallel and its Reducer (c10d's): buckets of flattened gradients, the post
// hooks that fill them, all-reduces launched in bucket order, and the copy of the averages back into .grad.
#include "distributed/ddp.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "autograd/node.h"
#include "core/error.h"
#include "core/grad_mode.h"
#include "distributed/distributed.h"
#include "ops/ops.h"

namespace tl::nn::parallel {

/// The gradients' side of DDP. Hooks run on the thread running backward; the buckets' all-reduces on the
/// group's worker thread, each launched after its last gradient was copied in.
class DistributedDataParallel::Reducer {
 public:
  /// Gradients of one dtype, flattened: parameter params[s]'s at offsets[s].
  struct Bucket {
    DType dtype = kFloat;
    std::vector<size_t> params;
    std::vector<int64_t> offsets;
    int64_t numel = 0;
    Tensor flat;
    size_t pending = 0;  ///< parameters whose gradient has not arrived in this backward
    std::shared_ptr<distributed::Work> work;
    std::function<Tensor()> value;  ///< with a comm hook: the reduced gradients, once work finished
  };

  Reducer(const Module& module, std::shared_ptr<distributed::ProcessGroup> group, double bucket_cap_mb,
          bool find_unused_parameters)
      : group_(std::move(group)), find_unused_(find_unused_parameters) {
    for (auto& [name, p] : module.named_parameters()) {
      if (!p.requires_grad()) continue;
      names_.push_back(name);
      params_.push_back(p);
    }
    TL_CHECK(!params_.empty(), "DistributedDataParallel: the module has no parameter that requires grad");
    // PyTorch 1.13's DDP: without find_unused_parameters the first iteration reduces one bucket per dtype and
    // records the order its gradients arrive in, which the next forward rebuilds the buckets from; with it the
    // buckets are fixed at construction, from the parameters' order.
    cap_ = static_cast<int64_t>(bucket_cap_mb * 1024 * 1024);
    std::vector<size_t> order(params_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    rebuild_pending_ = !find_unused_;
    assign_buckets(order, find_unused_ ? std::vector<int64_t>{kFirstBucketBytes, cap_}
                                      : std::vector<int64_t>{std::numeric_limits<int64_t>::max()},
                   true);
    ready_.assign(params_.size(), false);
    used_.assign(params_.size(), false);
    for (size_t i = 0; i < params_.size(); ++i) {
      auto accumulator = std::dynamic_pointer_cast<autograd::AccumulateGrad>(autograd::gradient_edge(params_[i]).fn);
      TL_INTERNAL_ASSERT(accumulator != nullptr, "a parameter that requires grad has an AccumulateGrad");
      // The graph of a forward may outlive this reducer (and keep its accumulators): the hook then does nothing.
      accumulator->add_post_hook([reducer = std::weak_ptr<Reducer*>(self_), i](const Tensor&) {
        if (auto alive = reducer.lock()) (*alive)->on_gradient(i);
      });
      accumulators_.push_back(std::move(accumulator));
    }
  }

  const std::vector<Bucket>& buckets() const { return buckets_; }

  void register_comm_hook(CommHook hook) {
    TL_CHECK(hook_ == nullptr, "register_comm_hook or register_builtin_comm_hook can only be called once.");
    TL_CHECK(hook != nullptr, "register_comm_hook: expected a hook, got an empty function");
    hook_ = std::move(hook);
  }

  /// Throws tl::Error when the previous synchronized backward left buckets unreduced.
  void check_prior_reduction_finished() const {
    if (!expect_hooks_) return;
    std::string missing;
    for (size_t i = 0; i < params_.size(); ++i)
      if (!ready_[i]) missing += (missing.empty() ? "" : ", ") + names_[i];
    TL_CHECK(false, "DistributedDataParallel: expected to have finished reduction in the prior iteration before "
             "starting a new one. This error indicates that your module has parameters that were not used in "
             "producing loss (or that backward was not called). Pass find_unused_parameters = true, and make sure "
             "all forward outputs participate in calculating loss. Parameters that did not receive grad on rank ",
             group_->rank(), ": ", missing);
  }

  /// After the first synchronized backward (without find_unused_parameters): the buckets again, from the order
  /// rank 0 saw the gradients arrive in (broadcast, so every rank reduces the same buckets), with the limits
  /// [1 MiB, bucket_cap_mb] (PyTorch's rebuild_buckets, at the next forward). Does nothing otherwise.
  void rebuild_buckets() {
    if (!rebuild_pending_ || ready_order_.size() != params_.size()) return;
    Tensor order = tl::zeros({static_cast<int64_t>(params_.size())}, kLong);
    for (size_t i = 0; i < ready_order_.size(); ++i) order.data<int64_t>()[i] = static_cast<int64_t>(ready_order_[i]);
    group_->broadcast(order, 0)->wait();
    std::vector<size_t> rank0_order(params_.size());
    for (size_t i = 0; i < rank0_order.size(); ++i) rank0_order[i] = static_cast<size_t>(order.data<int64_t>()[i]);
    assign_buckets(rank0_order, {kFirstBucketBytes, cap_}, false);
    rebuild_pending_ = false;
  }

  /// Readies the hooks for the backward of `outputs`: every bucket waits for all its parameters again; with
  /// find_unused_parameters, those the outputs do not depend on are found now and counted ready at the
  /// first hook (so that no collective starts during forward).
  void prepare_for_backward(const TensorList& outputs) {
    std::fill(ready_.begin(), ready_.end(), false);
    std::fill(used_.begin(), used_.end(), false);
    for (Bucket& b : buckets_) {
      b.pending = b.params.size();
      b.work.reset();
    }
    next_bucket_ = 0;
    unused_.clear();
    ready_order_.clear();  // a backward that left gradients out recorded an order the rebuild cannot use
    if (find_unused_) {
      std::unordered_set<const autograd::Node*> seen;
      std::vector<std::shared_ptr<autograd::Node>> stack;
      for (const Tensor& t : outputs)
        if (auto fn = autograd::gradient_edge(t).fn) stack.push_back(std::move(fn));
      while (!stack.empty()) {
        std::shared_ptr<autograd::Node> node = std::move(stack.back());
        stack.pop_back();
        if (!seen.insert(node.get()).second) continue;
        for (const autograd::Edge& e : node->next_edges)
          if (e.fn) stack.push_back(e.fn);
      }
      for (size_t i = 0; i < params_.size(); ++i)
        if (seen.count(accumulators_[i].get()) == 0) unused_.push_back(i);
    }
    expect_hooks_ = true;
  }

 private:
  /// c10d's compute_bucket_assignment_by_size: the parameters taken in `order`, a bucket per dtype filled until
  /// it holds at least its limit (that dtype's next entry of `limits`, the last one repeating), the buckets left
  /// open closed at the end. `initial`: the order is the parameters' own, and the buckets are sorted by their
  /// smallest index and reversed (DDP's construction); otherwise `order` is the one gradients became ready in,
  /// and the buckets stay in it (the rebuild). Makes each bucket's flat tensor.
  void assign_buckets(const std::vector<size_t>& order, const std::vector<int64_t>& limits, bool initial) {
    struct Open {
      DType dtype;
      Bucket bucket;
      size_t limit = 0;  ///< index into limits
    };
    std::vector<Open> open;
    std::vector<Bucket> closed;
    for (size_t k : order) {
      const Tensor& p = params_[k];
      auto it = std::find_if(open.begin(), open.end(), [&](const Open& o) { return o.dtype == p.dtype(); });
      if (it == open.end()) it = open.insert(open.end(), Open{p.dtype(), Bucket{}});
      Bucket& b = it->bucket;
      b.dtype = p.dtype();
      b.params.push_back(k);
      b.offsets.push_back(b.numel);
      b.numel += p.numel();
      if (b.numel * p.element_size() >= limits[it->limit]) {
        closed.push_back(std::move(b));
        b = Bucket{};
        it->limit = std::min(it->limit + 1, limits.size() - 1);
      }
    }
    for (Open& o : open)
      if (!o.bucket.params.empty()) closed.push_back(std::move(o.bucket));
    if (initial) {
      auto smallest = [](const Bucket& b) { return *std::min_element(b.params.begin(), b.params.end()); };
      std::sort(closed.begin(), closed.end(), [&](const Bucket& a, const Bucket& b) { return smallest(a) < smallest(b); });
      std::reverse(closed.begin(), closed.end());
    }
    buckets_ = std::move(closed);
    where_.resize(params_.size());
    for (size_t b = 0; b < buckets_.size(); ++b) {
      buckets_[b].flat = tl::zeros({buckets_[b].numel}, buckets_[b].dtype);
      for (size_t s = 0; s < buckets_[b].params.size(); ++s) where_[buckets_[b].params[s]] = {b, s};
    }
  }

  /// The slice of parameter i's bucket that holds its gradient, shaped as the parameter.
  Tensor slot(size_t i) const {
    const auto [b, s] = where_[i];
    const Bucket& bucket = buckets_[b];
    return bucket.flat.narrow(0, bucket.offsets[s], params_[i].numel()).view(params_[i].shape());
  }

  /// The post hook of parameter i's AccumulateGrad.
  void on_gradient(size_t i) {
    if (!expect_hooks_) return;  // no_sync, or a backward of a forward DDP did not prepare
    TL_CHECK(!ready_[i], "DistributedDataParallel: parameter ", names_[i], " was marked ready twice in one "
             "backward (its AccumulateGrad ran twice; is the parameter shared with another module's backward?)");
    used_[i] = true;
    if (rebuild_pending_) ready_order_.push_back(i);
    for (size_t u : unused_) mark_ready(u);
    unused_.clear();
    mark_ready(i);
  }

  void mark_ready(size_t i) {
    NoGradGuard no_grad;
    const Tensor& grad = params_[i].grad();
    Tensor target = slot(i);
    if (grad.defined()) {
      target.copy_(hook_ ? grad : grad.mul(1.0 / static_cast<double>(group_->size())));  // a hook averages itself
    } else {
      target.copy_(tl::zeros(params_[i].shape(), params_[i].dtype()));
    }
    ready_[i] = true;
    Bucket& bucket = buckets_[where_[i].first];
    if (--bucket.pending > 0) return;
    while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
      Bucket& next = buckets_[next_bucket_];
      if (hook_) {
        std::vector<Tensor> params;
        for (size_t k : next.params) params.push_back(params_[k]);
        CommHookResult result = hook_(GradBucket(next_bucket_, next_bucket_ + 1 == buckets_.size(), next.flat, params));
        TL_CHECK(result.work != nullptr && result.value != nullptr,
                 "DistributedDataParallel: the communication hook returned no work or no value");
        next.work = std::move(result.work);
        next.value = std::move(result.value);
      } else {
        next.work = group_->allreduce(next.flat, distributed::ReduceOp::SUM);
      }
      ++next_bucket_;
    }
    if (next_bucket_ == buckets_.size()) finalize();
  }

  /// Waits for every bucket and writes the averages into .grad (for a parameter no rank used, nothing).
  void finalize() {
    expect_hooks_ = false;
    for (Bucket& b : buckets_) {
      b.work->wait();
      if (!b.value) continue;
      const Tensor reduced = b.value();
      TL_CHECK(reduced.defined() && reduced.shape() == b.flat.shape() && reduced.dtype() == b.flat.dtype(),
               "DistributedDataParallel: the communication hook must give a tensor of its bucket's shape and dtype, ",
               b.flat.shape(), " ", b.flat.dtype(), ", got ",
               reduced.defined() ? detail::str_cat(reduced.shape(), " ", reduced.dtype()) : std::string("undefined"));
      NoGradGuard no_grad;
      if (!reduced.is_same(b.flat)) b.flat.copy_(reduced);
    }
    Tensor used_anywhere;
    if (find_unused_) {
      used_anywhere = tl::zeros({static_cast<int64_t>(params_.size())}, kInt);
      for (size_t i = 0; i < params_.size(); ++i) used_anywhere.data<int32_t>()[i] = used_[i] ? 1 : 0;
      group_->allreduce(used_anywhere, distributed::ReduceOp::MAX)->wait();
    }
    NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (find_unused_ && used_anywhere.data<int32_t>()[i] == 0) continue;
      if (Tensor grad = params_[i].grad(); grad.defined()) {
        grad.copy_(slot(i));
      } else {
        params_[i].mutable_grad() = slot(i).clone();
      }
    }
  }

  std::shared_ptr<Reducer*> self_ = std::make_shared<Reducer*>(this);  ///< what the hooks find this reducer by
  std::shared_ptr<distributed::ProcessGroup> group_;
  bool find_unused_;
  std::vector<std::string> names_;
  std::vector<Tensor> params_;
  std::vector<std::shared_ptr<autograd::AccumulateGrad>> accumulators_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> where_;  ///< per parameter: its bucket and its place there
  std::vector<bool> ready_;
  std::vector<bool> used_;
  std::vector<size_t> unused_;  ///< found by prepare_for_backward, marked ready at the first hook
  size_t next_bucket_ = 0;
  bool expect_hooks_ = false;
  CommHook hook_;  ///< register_comm_hook's, or empty: the built-in all-reduce
  static constexpr int64_t kFirstBucketBytes = 1024 * 1024;  ///< PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES
  int64_t cap_ = 0;                                          ///< bucket_cap_mb in bytes
  bool rebuild_pending_ = false;  ///< the buckets are the first iteration's, to be rebuilt from ready_order_
  std::vector<size_t> ready_order_;  ///< the parameters in the order the first synchronized backward readied them
};

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<Module> module, DistributedDataParallelOptions options)
    : group_(options.process_group ? options.process_group : distributed::default_group()),
      broadcast_buffers_(options.broadcast_buffers) {
  TL_CHECK(module != nullptr, "DistributedDataParallel: expected a module, got null");
  TL_CHECK(options.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ",
           options.bucket_cap_mb);
  TL_CHECK(group_->rank() >= 0, "DistributedDataParallel: this process is not a member of the process group");
  reducer_ = std::make_unique<Reducer>(*module, group_, options.bucket_cap_mb, options.find_unused_parameters);
  // PyTorch's _sync_module_states: every rank starts from rank 0's parameters and buffers.
  for (const Tensor& t : module->parameters()) group_->broadcast(t, 0)->wait();
  for (const Tensor& t : module->buffers()) group_->broadcast(t, 0)->wait();
  register_module("module", std::move(module));
}

DistributedDataParallel::~DistributedDataParallel() = default;

std::shared_ptr<Module> DistributedDataParallel::module() const { return child("module"); }

ForwardSignature DistributedDataParallel::forward_signature() const { return module()->forward_signature(); }

std::vector<std::vector<size_t>> DistributedDataParallel::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : reducer_->buckets()) out.push_back(b.params);
  return out;
}

TensorList DistributedDataParallel::forward(Inputs inputs) {
  const bool sync = GradMode::is_enabled() && require_backward_grad_sync_;
  if (sync) {
    reducer_->check_prior_reduction_finished();
    reducer_->rebuild_buckets();
  }
  if (broadcast_buffers_ && require_forward_param_sync_)
    for (const Tensor& t : module()->buffers()) group_->broadcast(t, 0)->wait();
  TensorList outputs = (*module())(TensorList(inputs.begin(), inputs.end()));
  require_forward_param_sync_ = sync;
  if (sync) reducer_->prepare_for_backward(outputs);
  return outputs;
}

void DistributedDataParallel::register_comm_hook(CommHook hook) { reducer_->register_comm_hook(std::move(hook)); }

DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& ddp)
    : ddp_(ddp), previous_(ddp.require_backward_grad_sync_) {
  ddp_.require_backward_grad_sync_ = false;
}

DistributedDataParallel::NoSync::~NoSync() { ddp_.require_backward_grad_sync_ = previous_; }

}  // namespace tl::nn::parallel

namespace tl::distributed::algorithms::ddp_comm_hooks::default_hooks {

nn::parallel::CommHook allreduce_hook(std::shared_ptr<ProcessGroup> group) {
  return [group](const nn::parallel::GradBucket& bucket) -> nn::parallel::CommHookResult {
    NoGradGuard no_grad;
    const std::shared_ptr<ProcessGroup> pg = group ? group : default_group();
    Tensor tensor = bucket.buffer();  // (numel,), averaged in place
    tensor.copy_(tensor.div(static_cast<double>(pg->size())));
    return {all_reduce(tensor, ReduceOp::SUM, pg, /*async_op=*/true), [tensor] { return tensor; }};
  };
}

nn::parallel::CommHook bf16_compress_hook(std::shared_ptr<ProcessGroup> group) {
  return [group](const nn::parallel::GradBucket& bucket) -> nn::parallel::CommHookResult {
    NoGradGuard no_grad;
    const std::shared_ptr<ProcessGroup> pg = group ? group : default_group();
    const Tensor compressed = bucket.buffer().to(kBFloat16).div(static_cast<double>(pg->size()));
    return {all_reduce(compressed, ReduceOp::SUM, pg, /*async_op=*/true), [compressed, buffer = bucket.buffer()]() mutable {
              NoGradGuard no_grad;
              buffer.copy_(compressed);  // decompressed into the bucket
              return buffer;
            }};
  };
}

}  // namespace tl::distributed::algorithms::ddp_comm_hooks::default_hooks
