// fuzz/contract.h — the fuzz targets' contract, "succeed or throw tl::Error": anything else aborts, which
// libFuzzer records as a crash, with the reason on stderr.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "core/error.h"

namespace tl::fuzz {

/// A broken contract: says why on stderr and aborts.
[[noreturn]] inline void fail(const char* target, const std::string& why) {
  std::fprintf(stderr, "fuzz target %s: %s\n", target, why.c_str());
  std::abort();
}

inline void require(bool cond, const char* target, const std::string& why) {
  if (!cond) fail(target, why);
}

/// Runs `parse`: true when it completed, false when it threw tl::Error for the input (its message
/// then goes to `error`, if given). A failed TL_INTERNAL_ASSERT (a tl::Error too, told apart by its
/// message) or any other exception aborts.
template <typename Parse>
bool parses(const char* target, Parse&& parse, std::string* error = nullptr) {
  try {
    parse();
    return true;
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with("internal assert failed")) fail(target, e.what());
    if (error) *error = e.what();
    return false;
  } catch (const std::exception& e) {
    fail(target, detail::str_cat(typeid(e).name(), " escaped instead of tl::Error: ", e.what()));
  }
}

}  // namespace tl::fuzz
