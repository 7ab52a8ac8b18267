// core/op_kind.h — the OpKind enumerators and the op count, generated from the op rows (core/gen_ops.py writes TL_FORALL_OPS into core/op_list.h). Only the code
// that names an op (OpKind::Add) or sizes a table by kNumOps includes it: core/dispatch.h declares
// OpKind opaquely, so a new op list row rebuilds these files and not every file that dispatches.
#pragma once

#include <cstdint>

#include "core/op_list.h"

namespace tl {

enum class OpKind : uint16_t {
#define TL_OP_ENUM(Enum, kernel, aten, schema, pyop, tags, variants) Enum,
  TL_FORALL_OPS(TL_OP_ENUM)
#undef TL_OP_ENUM
};

inline constexpr int kNumOps = 0
#define TL_OP_COUNT(Enum, kernel, aten, schema, pyop, tags, variants) +1
    TL_FORALL_OPS(TL_OP_COUNT)
#undef TL_OP_COUNT
    ;

}  // namespace tl
