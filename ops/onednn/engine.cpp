// ops/onednn/engine.cpp — engine and stream singletons; primitives run with a scratchpad from the
// calling thread's staging buffer, which lets a primitive created on one thread execute on another.
#include "ops/onednn/engine.h"

#include <memory>

#include "ops/onednn/memory.h"

namespace tl::onednn {

const dnnl::engine& engine() {
  static const dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void Primitive::execute(std::unordered_map<int, dnnl::memory> args) const {
  std::shared_ptr<Storage> keep;
  if (scratchpad_.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, staging_memory(Staging::Scratchpad, scratchpad_, keep));
  primitive_.execute(stream(), args);
  stream().wait();
}

Primitive make_reorder(const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
  return Primitive(dnnl::reorder::primitive_desc(engine(), src, engine(), dst, default_attr()));
}

}  // namespace tl::onednn
