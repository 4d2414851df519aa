#pragma once
// The process exit status of every command, in one place (docs/interface.md "Exit status").
// Library code returns these by name, never as raw numbers; the CLI returns them from main().

namespace cs::runtime {

constexpr int kExitOk = 0;         // everything asked for was done
constexpr int kExitFatal = 1;      // nothing usable, or an output could not be written
constexpr int kExitUsage = 2;      // a mistake on the command line (or a --step not in the data)
constexpr int kExitPartial = 3;    // finished, but some input was skipped or only partly read
constexpr int kExitSigint = 130;   // interrupted by SIGINT (128 + 2, runtime/interrupt.h)
constexpr int kExitSigterm = 143;  // interrupted by SIGTERM (128 + 15)

}  // namespace cs::runtime
