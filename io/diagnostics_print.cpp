#include "io/diagnostics_print.h"

#include <cstdio>

#include "io/text_escape.h"

namespace cs::io {

void print_message(const std::string& line) {
  // Input-derived text (names, quoted values) can neither drive the terminal nor forge a line.
  std::string out = "clusterscope: ";
  append_escaped_text(out, line);
  out += '\n';
  std::fwrite(out.data(), 1, out.size(), stderr);
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
