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

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::kError) {
    ++errors_;
  } else {
    ++warnings_;
  }
  size_t same_file = 0;
  // Count from the back: records of one file are usually contiguous.
  for (auto it = items_.rbegin(); it != items_.rend() && it->file == d.file; ++it) ++same_file;
  if (same_file >= limit_per_file_) {
    ++suppressed_;
    return;
  }
  items_.push_back(std::move(d));
}

void Diagnostics::append(const Diagnostics& other) {
  for (const auto& d : other.items_) add(d);
  suppressed_ += other.suppressed_;
  // Suppressed records of `other` still count.
  errors_ += other.errors_ - count_errors(other.items_);
  warnings_ += other.warnings_ - (other.items_.size() - count_errors(other.items_));
}

}  // namespace cs::io
