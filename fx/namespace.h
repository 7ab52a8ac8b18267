// fx/namespace.h — deprecated in 0.2.0, removed in 0.3.0: fx::Namespace is fx::UniqueNames
// (fx/unique_names.h), which says what it does: it makes a graph's names unique.
#pragma once

#include "fx/unique_names.h"

namespace tl::fx {

using Namespace [[deprecated("tl::fx::Namespace is tl::fx::UniqueNames (fx/unique_names.h)")]] = UniqueNames;

}  // namespace tl::fx
