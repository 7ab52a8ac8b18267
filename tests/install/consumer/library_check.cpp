// tests/install/consumer/library_check.cpp — what a shared library must carry across its boundary: the
// headers' version (TL_VERSION...) against the library's (tl::version()) and argv[1], the version the package
// reports; and a tl::Error thrown inside the library caught by its type here (its typeinfo is exported).
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
  try {
    tl::ones({2, 3}).view({4});
  } catch (const tl::Error& e) {
    std::printf("caught tl::Error: %s\n", e.what());
    return 0;
  }
  std::printf("view({4}) of a (2, 3) tensor did not throw tl::Error\n");
  return 1;
}
