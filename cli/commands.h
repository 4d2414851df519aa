#pragma once
// Subcommands of the clusterscope binary. Each takes the arguments after the command name
// (argv[0] is the command name) and returns the process exit status:
//   0 = success, 3 = finished but some input was skipped or partly read, 2 = bad command line,
//   1 = nothing usable / fatal error.

namespace cs::cli {

constexpr int kExitOk = 0;
constexpr int kExitFatal = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPartial = 3;

int run_cluster(int argc, char** argv);
int run_compare(int argc, char** argv);
int run_generate(int argc, char** argv);

}  // namespace cs::cli
