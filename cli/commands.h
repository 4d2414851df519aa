#pragma once
// Subcommands of the clusterscope binary. Each takes the arguments after the command name
// (argv[0] is the command name) and returns the process exit status:
//   0 = success, 3 = finished but some input was skipped or partly read, 2 = bad command line,
//   1 = nothing usable / fatal error (a failed write of any output included),
//   130 / 143 = `cluster` interrupted by SIGINT / SIGTERM (runtime/interrupt.h: 128 + signal).

#include <string>
#include <vector>

#include "runtime/exit_status.h"

namespace cs::cli {

// The words no option of a command takes (its hidden "stray" positional), as the usage error
// names them: "unexpected argument 'extra'", "unexpected arguments 'a' 'b'".
inline std::string unexpected_argument(const std::vector<std::string>& words) {
  std::string out = words.size() == 1 ? "unexpected argument" : "unexpected arguments";
  for (const std::string& w : words) out += " '" + w + "'";
  return out;
}

int run_cluster(int argc, char** argv);
int run_compare(int argc, char** argv);
int run_generate(int argc, char** argv);

}  // namespace cs::cli
