// ops/onednn/engine.h — the process's one oneDNN CPU engine, a stream per thread, and Primitive:
// a primitive built for user-managed scratchpad, so one cached primitive runs safely on any thread.
// Internal to ops/: oneDNN types never reach an installed header.
#pragma once

#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace tl::onednn {

/// The CPU engine, created on first use and shared by every thread.
const dnnl::engine& engine();

/// The calling thread's stream on engine(). oneDNN's CPU streams run synchronously with OpenMP.
dnnl::stream& stream();

/// Attributes every cached primitive is created with: the scratchpad is passed at execution
/// (from a per-thread buffer) instead of living in oneDNN's thread-bound global scratchpad.
dnnl::primitive_attr default_attr();

/// A created primitive plus the scratchpad it needs. Copies share the primitive; executing one
/// concurrently from several threads is safe (each thread brings its own scratchpad).
class Primitive {
 public:
  Primitive() = default;
  /// `pd` must have been created with default_attr() (or another user-scratchpad attribute).
  template <typename PrimitiveDesc>
  explicit Primitive(const PrimitiveDesc& pd)
      : primitive_(pd.get()), scratchpad_(pd.scratchpad_desc()) {}

  explicit operator bool() const { return primitive_.get(true) != nullptr; }

  /// Runs on the calling thread's stream and waits; `args` excludes the scratchpad.
  void execute(std::unordered_map<int, dnnl::memory> args) const;

 private:
  dnnl::primitive primitive_;
  dnnl::memory::desc scratchpad_;
};

/// A reorder from `src` to `dst` layout (same dims), built with default_attr().
Primitive make_reorder(const dnnl::memory::desc& src, const dnnl::memory::desc& dst);

}  // namespace tl::onednn
