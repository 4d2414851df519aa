#include "io/diagnostics.h"

#include <utility>

#include "io/text_escape.h"

namespace cs::io {

static size_t count_errors(const std::vector<Diagnostic>& items) {
  size_t n = 0;
  for (const auto& d : items) n += d.severity == Severity::kError;
  return n;
}

std::string Diagnostic::to_string() const {
  std::string s = escape_text(file);
  if (line > 0) {
    s += ':';
    s += std::to_string(line);
  }
  if (!s.empty()) s += ": ";
  append_escaped_text(s, what);
  if (offset >= 0 && line <= 0) {
    s += " (byte ";
    s += std::to_string(offset);
    s += ')';
  }
  if (!hint.empty()) {
    s += " \u2014 ";
    append_escaped_text(s, hint);
  }
  return s;
}

void Diagnostics::warn(std::string file, int64_t line, std::string what, std::string hint,
                       int64_t offset) {
  add({Severity::kWarning, std::move(file), line, offset, std::move(what), std::move(hint)});
}

void Diagnostics::error(std::string file, int64_t line, std::string what, std::string hint,
                        int64_t offset) {
  add({Severity::kError, std::move(file), line, offset, std::move(what), std::move(hint)});
}

const std::vector<Diagnostic>& Diagnostics::items() const {
  static const std::vector<Diagnostic> kNone;
  return s_ ? s_->items : kNone;
}

void Diagnostics::add(Diagnostic d) {
  State& s = state();
  if (d.severity == Severity::kError) {
    ++s.errors;
  } else {
    ++s.warnings;
  }
  size_t same_file = 0;
  // Count from the back: records of one file are usually contiguous.
  for (auto it = s.items.rbegin(); it != s.items.rend() && it->file == d.file; ++it) ++same_file;
  if (same_file >= s.limit_per_file) {
    ++s.suppressed;
    return;
  }
  s.items.push_back(std::move(d));
}

void Diagnostics::append(const Diagnostics& other) {
  if (!other.s_) return;
  const State& o = *other.s_;
  for (const auto& d : o.items) add(d);
  if (o.suppressed == 0 && o.errors + o.warnings == o.items.size()) return;
  State& s = state();
  s.suppressed += o.suppressed;
  // Suppressed records of `other` still count.
  s.errors += o.errors - count_errors(o.items);
  s.warnings += o.warnings - (o.items.size() - count_errors(o.items));
}

}  // namespace cs::io
