// ops/onednn/packed.cpp — the registry of carried objects, by the storage of the tensor handed out for each;
// an object leaves it when that storage (its only owner) dies.
#include "ops/onednn/packed.h"

#include <mutex>
#include <unordered_map>

#include "core/storage.h"

namespace tl::onednn {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const Storage*, const Packed*> by_storage;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: packed weights may outlive statics
  return *r;
}

}  // namespace

Packed::~Packed() {
  if (!storage_) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_storage.erase(storage_);
}

Tensor carry(std::shared_ptr<Packed> packed) {
  const Tensor bytes = packed->bytes;
  Packed* object = packed.get();
  const int64_t size = bytes.numel() * element_size(bytes.dtype());
  std::shared_ptr<Storage> storage = Storage::wrap(bytes.raw_data(), size, std::move(packed));
  Tensor result = Tensor::make(storage, bytes.shape(), bytes.strides(), 0, bytes.dtype());
  object->storage_ = storage.get();
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_storage.emplace(storage.get(), object);  // if this throws, `result` dies (after the unlock) unregistered
  return result;
}

const Packed* packed_of(const Tensor& t) {
  if (!t.defined()) return nullptr;
  const Packed* packed = nullptr;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.by_storage.find(t.storage().get());
    if (it != r.by_storage.end()) packed = it->second;
  }
  if (!packed || t.storage_offset() != 0 || t.shape() != packed->bytes.shape() || !t.is_contiguous() ||
      t.dtype() != packed->bytes.dtype()) {
    return nullptr;
  }
  return packed;
}

}  // namespace tl::onednn
