// tests/install/consumer/version_check.cpp — the headers' version (TL_VERSION...) against the library's
// (tl::version()) and against argv[1], the version the package manager reports.
#include <cstdio>
#include <cstring>
#include <string>
#include <torchless/torchless.h>

int main(int argc, char** argv) {
  const std::string parts = std::to_string(TL_VERSION_MAJOR) + "." + std::to_string(TL_VERSION_MINOR) + "." +
                            std::to_string(TL_VERSION_PATCH);
  std::printf("headers %s, library %s\n", TL_VERSION, tl::version());
  if (parts != TL_VERSION || std::strcmp(tl::version(), TL_VERSION) != 0 || argc < 2 || parts != argv[1]) {
    std::printf("version mismatch: TL_VERSION_MAJOR/MINOR/PATCH %s, expected %s\n", parts.c_str(),
                argc < 2 ? "(none)" : argv[1]);
    return 1;
  }
}
