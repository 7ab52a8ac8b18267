// core/version.cpp — tl::version(): the version this library was built as (torchless/version.h, generated).
#include "torchless/version.h"

namespace tl {

const char* version() noexcept { return TL_VERSION; }

}  // namespace tl
