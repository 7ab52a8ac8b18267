// ops/onednn/errors.cpp — turning oneDNN failures into tl::Error messages.
#include "ops/onednn/errors.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include "core/error.h"

namespace tl::onednn {

void rethrow_as_error(const char* op, const std::string& context, const dnnl::error& e) {
  detail::throw_error(detail::str_cat(op, ": oneDNN ", dnnl_status2str(e.status), ": ", e.what(), " (",
                                      context, ")"));
}

void rethrow_out_of_memory(const char* op, const std::string& context) {
  detail::throw_error(detail::str_cat(op, ": out of memory (", context, ")"));
}

}  // namespace tl::onednn
