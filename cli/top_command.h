#pragma once
// `clusterscope top PROFILE`: the slowest operators of one profile (a rank directory, a
// kernel_details.csv or a Kineto trace). Registered in cli/main.cpp by the lead.

namespace cs::cli {

// argv[0] is "top". Returns 0, 2 (bad command line), 3 (input partly read) or 1 (nothing usable).
int run_top(int argc, char** argv);

}  // namespace cs::cli
