#pragma once
// Diagnostics: what a reader found wrong with its input, collected rather than printed.
//
// Readers never print and never exit. They append Diagnostic records (file, line, byte offset,
// what is wrong, what to do) and the caller decides: the CLI prints them as
//   clusterscope: <file>[:line]: <what> — <what to do>
// and the cluster pipeline records them per rank in the manifest.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cs::io {

enum class Severity { kWarning, kError };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;     // path of the input file ("" when not about a file)
  int64_t line = 0;     // 1-based line, 0 = unknown
  int64_t offset = -1;  // byte offset in the file, -1 = unknown
  std::string what;     // what is wrong, e.g. "row has 5 fields, header has 7"
  std::string hint;     // what to do, e.g. "the row was skipped; check the file is complete"

  // "file:line: what — hint" (without the "clusterscope: " prefix), one line: control
  // characters and invalid UTF-8 in file, what and hint escaped (io/text_escape.h).
  std::string to_string() const;
};

// An append-only list of diagnostics with counters. Cheap to move; merge with append().
// Nothing is allocated until the first record (or a limit) is set: an empty list costs 8 bytes
// (the cluster root holds one per rank, nearly all of them empty).
class Diagnostics {
 public:
  Diagnostics() = default;
  Diagnostics(const Diagnostics& o) : s_(o.s_ ? std::make_unique<State>(*o.s_) : nullptr) {}
  Diagnostics& operator=(const Diagnostics& o) {
    if (this != &o) s_ = o.s_ ? std::make_unique<State>(*o.s_) : nullptr;
    return *this;
  }
  Diagnostics(Diagnostics&&) noexcept = default;
  Diagnostics& operator=(Diagnostics&&) noexcept = default;

  void warn(std::string file, int64_t line, std::string what, std::string hint = {},
            int64_t offset = -1);
  void error(std::string file, int64_t line, std::string what, std::string hint = {},
             int64_t offset = -1);
  void add(Diagnostic d);
  void append(const Diagnostics& other);

  const std::vector<Diagnostic>& items() const;
  bool empty() const { return !s_ || s_->items.empty(); }
  size_t error_count() const { return s_ ? s_->errors : 0; }
  size_t warning_count() const { return s_ ? s_->warnings : 0; }
  bool has_errors() const { return error_count() > 0; }

  // Keeps at most this many records per file; later ones are only counted (a 10 GB file with a
  // bad row every line must not produce 10 GB of diagnostics). Default 100.
  void set_limit_per_file(size_t n) { state().limit_per_file = n; }
  size_t suppressed() const { return s_ ? s_->suppressed : 0; }

 private:
  struct State {
    std::vector<Diagnostic> items;
    size_t errors = 0;  // counted even when suppressed
    size_t warnings = 0;
    size_t suppressed = 0;
    size_t limit_per_file = 100;
  };
  State& state() {
    if (!s_) s_ = std::make_unique<State>();
    return *s_;
  }
  std::unique_ptr<State> s_;  // null: nothing recorded, the default limit
};

}  // namespace cs::io
