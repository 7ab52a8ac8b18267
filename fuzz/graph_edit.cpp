// fuzz/graph_edit.cpp — the graph-edit fuzz target: bytes decoded into a sequence of edits, runs and
// passes on a traced model. Invariant checked after every step: a step that threw tl::Error left the
// graph printing and the module running exactly as before; a step that succeeded left a graph that lints.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "core/storage.h"
#include "fuzz/contract.h"
#include "fuzz/targets.h"
#include "fx/graph_module.h"
#include "fx/interpreter.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/shape_prop.h"
#include "fx/tracer.h"
#include "models/toy_fuser.h"
#include "nn/activation.h"
#include "ops/ops.h"

namespace tl::fuzz {
namespace {

constexpr const char* kTarget = "graph_edit";
constexpr int kMaxSteps = 48;

// The input read as a stream of small numbers; zeros once it is used up.
class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  bool done() const { return pos_ >= in_.size(); }
  uint8_t byte() { return pos_ < in_.size() ? static_cast<uint8_t>(in_[pos_++]) : 0; }
  size_t pick(size_t n) { return n == 0 ? 0 : byte() % n; }
  int64_t integer() {
    const uint8_t b = byte();
    if (b < 240) return static_cast<int8_t>(b);  // small values, negatives included
    static constexpr int64_t kExtremes[] = {INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, int64_t{1} << 40, -(int64_t{1} << 40)};
    return kExtremes[b % std::size(kExtremes)];
  }

 private:
  std::span<const std::byte> in_;
  size_t pos_ = 0;
};

// What running the module gave: the tensors' bytes, or the error message.
struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<std::string> values;  // dtype, shape and bytes of each output

  bool operator==(const Outcome&) const = default;
};

std::string fingerprint(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::string s = detail::str_cat(c.dtype(), c.shape(), ":");
  s.append(static_cast<const char*>(c.raw_data()), static_cast<size_t>(c.nbytes()));
  return s;
}

// Runs `run` on a fresh copy of the input with the generator reseeded, then puts back every parameter
// and buffer an in-place op may have changed, so the same module always gives the same outcome.
template <typename Run>
Outcome outcome_of(nn::Module& module, const Tensor& input, Run&& run) {
  nn::StateDict saved;
  for (auto& [name, t] : module.state_dict()) saved.emplace_back(name, t.clone());
  Outcome o;
  TensorList out;
  manual_seed(0);
  o.ok = parses(kTarget, [&] { out = run(TensorList{input.clone()}); }, &o.error);
  for (const Tensor& t : out) o.values.push_back(t.defined() ? fingerprint(t) : "None");
  const nn::StateDict now = module.state_dict();
  NoGradGuard no_grad;  // parameters require grad: restoring them is not part of any graph
  for (size_t i = 0; i < now.size() && i < saved.size(); ++i) {
    Tensor t = now[i].second;
    if (t.shape() == saved[i].second.shape() && t.dtype() == saved[i].second.dtype()) t.copy_(saved[i].second);
  }
  return o;
}

class Session {
 public:
  Session(std::shared_ptr<fx::GraphModule> gm, fx::GraphModule& other, Tensor input)
      : gm_(std::move(gm)), other_(other), input_(std::move(input)) {}

  /// One decoded step; returns whether it succeeded.
  bool step(Reader& in) {
    const std::string graph_before = gm_->graph().str();
    const Outcome run_before = run();
    const uint8_t kind = in.byte() % 16;
    const bool ok = parses(kTarget, [&] { apply(kind, in); });
    const bool changes_nothing = kind >= 11;  // runs, copies, passes and prints
    if (!ok || changes_nothing) {
      require(gm_->graph().str() == graph_before, kTarget,
              detail::str_cat("step ", int(kind), (ok ? " succeeded" : " threw tl::Error"), " but changed the graph from\n",
                              graph_before, "\nto\n", gm_->graph().str()));
      const Outcome run_after = run();
      require(run_after == run_before, kTarget,
              detail::str_cat("step ", int(kind), (ok ? " succeeded" : " threw tl::Error"),
                              " but the module no longer runs as before: ", run_before.error, " / ", run_after.error));
    }
    if (ok) require(parses(kTarget, [&] { gm_->graph().lint(); }), kTarget, "a successful edit left a graph that fails lint()");
    return ok;
  }

 private:
  Outcome run() {
    return outcome_of(*gm_, input_, [&](const TensorList& x) { return (*gm_)(x); });
  }

  std::vector<fx::Node*> nodes() const { return gm_->graph().node_list(); }

  fx::Node* node(Reader& in) {
    const std::vector<fx::Node*> all = nodes();
    return all[in.pick(all.size())];
  }

  fx::Argument argument(Reader& in, int depth = 0) {
    switch (in.byte() % 10) {
      case 0: case 1: case 2: return node(in);
      case 3: {  // a node of another graph: every edit must refuse it
        const std::vector<fx::Node*> all = other_.graph().node_list();
        return all[in.pick(all.size())];
      }
      case 4: case 5: return in.integer();
      case 6: return static_cast<double>(in.integer()) / 4.0;
      case 7: return fx::Argument();
      case 8: return in.byte() % 2 == 0;
      default: {
        if (depth >= 2) return in.integer();
        std::vector<fx::Argument> items(in.pick(4));
        for (auto& item : items) item = argument(in, depth + 1);
        return fx::Argument::list(std::move(items), in.byte() % 2 == 0);
      }
    }
  }

  std::vector<fx::Argument> arguments(Reader& in) {
    std::vector<fx::Argument> args(in.pick(4));
    for (auto& a : args) a = argument(in);
    return args;
  }

  std::string module_path(Reader& in) {
    const auto named = gm_->named_modules();
    if (in.byte() % 8 == 0) return "no_such_module";
    return named[in.pick(named.size())].first;
  }

  void insert(Reader& in, uint8_t kind) {
    fx::Graph& g = gm_->graph();
    fx::Node* at = node(in);
    const bool after = in.byte() % 2;
    auto guard = after ? g.inserting_after(at) : g.inserting_before(at);
    const auto op = static_cast<OpKind>(in.pick(kNumOps));
    std::vector<fx::Argument> args = arguments(in);
    if (kind == 0) g.call_function(op, std::move(args), {}, in.byte() % 2 ? CallStyle::Operator : CallStyle::Function);
    else if (kind == 1) g.call_method(op, std::move(args));
    else g.call_module(module_path(in), std::move(args));
  }

  void apply(uint8_t kind, Reader& in) {
    static const char* const kKeys[] = {"dim", "alpha", "dtype", "keepdim", "no_such_argument"};
    switch (kind) {
      case 0: case 1: case 2: insert(in, kind); break;
      case 3: gm_->graph().erase_node(node(in)); break;
      case 4: node(in)->replace_all_uses_with(node(in)); break;
      case 5: node(in)->set_args(arguments(in)); break;
      case 6: node(in)->update_arg(in.pick(3), argument(in)); break;
      case 7: node(in)->replace_input_with(node(in), node(in)); break;
      case 8: node(in)->update_kwarg(kKeys[in.pick(std::size(kKeys))], argument(in)); break;
      case 9: gm_->recompile(); break;
      case 10: gm_->graph().eliminate_dead_code(); break;
      case 11: (void)gm_->clone(); break;
      case 12: (void)fx::fuse_conv_bn(gm_); break;
      case 13: {
        fx::InferenceOptions options;
        options.example_input_shape = {};
        options.winograd = in.byte() % 2;
        auto fast = fx::optimize_for_inference(gm_, options);
        (void)outcome_of(*fast, input_, [&](const TensorList& x) { return (*fast)(x); });
        break;
      }
      case 14: {
        fx::ShapeProp interp(gm_);
        (void)outcome_of(*gm_, input_, [&](const TensorList& x) { return interp.run(x); });
        break;
      }
      default: (void)(gm_->code() + gm_->graph().str()); break;
    }
  }

  std::shared_ptr<fx::GraphModule> gm_;
  fx::GraphModule& other_;
  Tensor input_;
};

}  // namespace

bool run_graph_edit(std::span<const std::byte> input) {
  static const bool limited = (set_allocation_limit(int64_t{256} << 20), true);
  (void)limited;
  static const std::shared_ptr<models::ToyFuserModel> model = [] {
    manual_seed(0);
    auto m = models::toy_fuser_model();
    m->eval();
    return m;
  }();
  static const std::shared_ptr<fx::GraphModule> other = fx::symbolic_trace(model);
  manual_seed(1);
  Session session(fx::symbolic_trace(model), *other, randn({1, 1, 4, 4}));
  Reader in(input);
  bool all_ok = true;
  for (int i = 0; i < kMaxSteps && !in.done(); ++i) all_ok = session.step(in) && all_ok;
  return all_ok;
}

}  // namespace tl::fuzz
