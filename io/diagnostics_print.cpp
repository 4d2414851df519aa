#include "io/diagnostics_print.h"

#include <cstdio>

namespace cs::io {

void print_message(const std::string& line) {
  std::fprintf(stderr, "clusterscope: %s\n", line.c_str());
}

void print_diagnostics(const Diagnostics& diag, bool quiet) {
  for (const Diagnostic& d : diag.items()) {
    if (quiet && d.severity == Severity::kWarning) continue;
    print_message(d.to_string());
  }
  if (diag.suppressed() > 0 && !quiet)
    print_message(std::to_string(diag.suppressed()) + " more problems not shown");
}

}  // namespace cs::io
