// Placeholder until the generate command lands; replaced by its owner.
#include <cstdio>

#include "cli/commands.h"

namespace cs::cli {

int run_generate(int, char**) {
  std::fputs("clusterscope: generate: not available in this build\n", stderr);
  return kExitFatal;
}

}  // namespace cs::cli
