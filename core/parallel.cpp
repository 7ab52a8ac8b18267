// core/parallel.cpp — thread count control.
#include "core/parallel.h"

#include "core/adaptive_threads.h"
#include "core/error.h"

namespace tl {

int get_num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  TL_CHECK(n >= 1, "set_num_threads: expected a positive thread count, got ", n);
  omp_set_num_threads(n);
  detail::pin_num_threads();
}

}  // namespace tl
