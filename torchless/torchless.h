// torchless/torchless.h — the one header a user includes: tensors, ops, modules, fx, profiler, models.
#pragma once

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "ops/ops.h"
