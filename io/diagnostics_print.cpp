#include "io/diagnostics_print.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "io/text_escape.h"

namespace cs::io {

namespace {

std::mutex said_mutex;
bool say_once = false;
std::set<std::string> said;  // the lines printed, when say_once

}  // namespace

void print_each_message_once() {
  std::lock_guard<std::mutex> lock(said_mutex);
  say_once = true;
}

void print_message(const std::string& line) {
  // Input-derived text (names, quoted values) can neither drive the terminal nor forge a line.
  std::string out = "clusterscope: ";
  append_escaped_text(out, line);
  out += '\n';
  {
    std::lock_guard<std::mutex> lock(said_mutex);
    if (say_once && !said.insert(out).second) return;
  }
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

void print_diagnostics_grouped(const Diagnostics& diag, bool quiet) {
  constexpr size_t kNamed = 3;  // further files named in a grouped message
  using Key = std::tuple<Severity, std::string, std::string>;
  std::map<Key, size_t> group_of;
  std::vector<std::vector<const Diagnostic*>> groups;
  for (const Diagnostic& d : diag.items()) {
    if (quiet && d.severity == Severity::kWarning) continue;
    auto [it, fresh] = group_of.try_emplace(Key{d.severity, d.what, d.hint}, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&d);
  }
  for (const auto& g : groups) {
    Diagnostic first = *g.front();
    if (g.size() > 1) {
      std::string more =
          " (and " + std::to_string(g.size() - 1) + " more file" + (g.size() > 2 ? "s" : "") + ": ";
      for (size_t i = 1; i < g.size() && i <= kNamed; ++i) more += (i > 1 ? ", " : "") + g[i]->file;
      if (g.size() - 1 > kNamed) more += ", ...";
      first.what += more + ")";
    }
    print_message(first.to_string());
  }
  if (diag.suppressed() > 0 && !quiet)
    print_message(std::to_string(diag.suppressed()) + " more problems not shown");
}

}  // namespace cs::io
