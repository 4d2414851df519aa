// Placeholder until the compare command lands; replaced by its owner.
#include <cstdio>

#include "cli/commands.h"

namespace cs::cli {

int run_compare(int, char**) {
  std::fputs("clusterscope: compare: not available in this build\n", stderr);
  return kExitFatal;
}

}  // namespace cs::cli
