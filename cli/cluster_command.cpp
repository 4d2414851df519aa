// Placeholder until the cluster command lands; replaced by its owner.
#include <cstdio>

#include "cli/commands.h"

namespace cs::cli {

int run_cluster(int, char**) {
  std::fputs("clusterscope: cluster: not available in this build\n", stderr);
  return kExitFatal;
}

}  // namespace cs::cli
