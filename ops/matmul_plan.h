// ops/matmul_plan.h — (internal) how torch.matmul multiplies two operands, decided once: the kernel
// (ops/linalg.cpp) runs the products it names and the ATen tree (ops/aten_tree.cpp) records the ops ATen's
// matmul runs for the same case.
#pragma once

#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace tl::detail {

struct MatmulPlan {
  /// ATen's matmul cases: a vector dot, matrix x vector, vector x matrix, matrix x matrix, a batch of
  /// matrices (vector) times one matrix (vector) folded into one product, broadcast batches that flatten to
  /// views (one bmm), and the rest (a vector or matrix times a batch, batches that do not fold).
  enum class Path : uint8_t { Dot, Mv, VecMat, Mm, Folded, Batched, Other };
  Path path = Path::Other;
  Shape shape;  ///< the result's
  /// The operands as matrices (views): a 1-D self as a (1, k) row, a 1-D other as a (k, 1) column.
  Tensor self_matrix, other_matrix;
  Shape batch;  ///< the operands' batch dims, broadcast
  Tensor folded;  ///< Folded: self (batch..., m, k) as one (rows, k) matrix, a view
  Tensor flat_self, flat_other;  ///< Batched: each operand's batches broadcast and flattened, (B, r, c) views
};

/// The plan for operands matmul accepts (each at least 1-D, equal contracted sizes, broadcastable batch
/// dims); nullopt for any other pair, whose problem the kernel's checks name. Never throws.
std::optional<MatmulPlan> plan_matmul(const Tensor& self, const Tensor& other);

}  // namespace tl::detail
