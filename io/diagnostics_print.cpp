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

namespace {

// "<kind> <id>: <rest>" split, when `what` reads so: a subject of at least two words with no
// ": " in it, its last word the id. False otherwise.
bool split_subject(const std::string& what, std::string& kind, std::string& id, std::string& rest) {
  const size_t colon = what.find(": ");
  if (colon == std::string::npos) return false;
  const size_t space = what.rfind(' ', colon);
  if (space == std::string::npos || space == 0) return false;
  kind = what.substr(0, space);
  id = what.substr(space + 1, colon - space - 1);
  rest = what.substr(colon + 2);
  return !id.empty();
}

}  // namespace

std::vector<std::string> note_lines(const Diagnostics& notes) {
  constexpr size_t kNamed = 3;  // subjects named in a merged line
  struct Note {
    const Diagnostic* first;
    std::string kind, rest;        // empty kind: not split
    std::vector<std::string> ids;  // distinct subjects, first-seen order
    std::set<std::string> seen;
    size_t count = 0;
  };
  using Key = std::tuple<Severity, std::string, std::string, std::string, std::string>;
  std::map<Key, size_t> index;
  std::vector<Note> distinct;
  for (const Diagnostic& d : notes.items()) {
    std::string kind, id, rest;
    const bool split = split_subject(d.what, kind, id, rest);
    Key key = split ? Key{d.severity, d.file, kind, rest, d.hint}
                    : Key{d.severity, d.file, std::string(), d.what, d.hint};
    auto [it, added] = index.try_emplace(std::move(key), distinct.size());
    if (added) distinct.push_back({&d, split ? kind : std::string(), rest, {}, {}, 0});
    Note& n = distinct[it->second];
    ++n.count;
    if (split && n.seen.insert(id).second) n.ids.push_back(id);
  }
  std::vector<std::string> lines;
  for (const Note& n : distinct) {
    if (n.ids.size() > 1) {
      Diagnostic merged = *n.first;
      std::string subjects;
      for (size_t i = 0; i < n.ids.size() && i < kNamed; ++i)
        subjects += (i > 0 ? ", " : "") + n.ids[i];
      if (n.ids.size() > kNamed)
        subjects += " and " + std::to_string(n.ids.size() - kNamed) + " more (" +
                    std::to_string(n.ids.size()) + " in all)";
      const bool plural = !n.kind.empty() && n.kind.back() == 's';
      merged.what = n.kind + (plural ? " " : "s ") + subjects + ": " + n.rest;
      lines.push_back(merged.to_string());
      continue;
    }
    std::string line = n.first->to_string();
    if (n.count > 1) line += " (" + std::to_string(n.count) + " times)";
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace cs::io
