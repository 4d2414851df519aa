#pragma once
// What the communication.json and communication_matrix.json readers share around their walkers
// (readers/communication.cpp, readers/matrix.cpp): a text walked into a file of steps by the
// reader's walker, and the file loaded into this thread's JSON buffer or a text padded first.

#include <string>
#include <string_view>

#include "io/json/json_input.h"

namespace cs::readers {

// Walks `text` into `out` with Walker(ctx, out, flat).root(doc), out.steps cleared first (a
// repaired, truncated text is walked again from scratch). True when it parsed, or when a damaged
// text still gave data.
template <class Walker, class File>
bool walk_steps(simdjson::padded_string_view text, const std::string& source, bool flat, File& out,
                io::Diagnostics& diag) {
  out.steps.clear();
  bool got = false;
  io::JsonWalkStatus st = io::walk_json_document(
      text, source, diag, /*keep_depth=*/3,
      [&out, flat](simdjson::ondemand::document& doc, io::JsonContext& ctx) {
        out.steps.clear();
        Walker w(ctx, out, flat);
        return w.root(doc);
      },
      &got);
  return st == io::JsonWalkStatus::kOk || (st == io::JsonWalkStatus::kDamaged && got);
}

// The file at `path` loaded into this thread's JSON buffer and given to parse(text, source, out,
// diag); out.steps is cleared even when the file cannot be read.
template <class File, class Parse>
bool read_steps_file(const std::string& path, File& out, io::Diagnostics& diag, Parse parse) {
  out.steps.clear();
  io::JsonFileBuffer& buf = io::thread_json_buffer();
  if (!io::load_json_file(path, buf, diag)) return false;
  return parse(buf.view(), path, out, diag);
}

// `json` copied into a padded buffer and given to parse(text, source, out, diag).
template <class File, class Parse>
bool parse_steps_text(std::string_view json, const std::string& source, File& out,
                      io::Diagnostics& diag, Parse parse) {
  simdjson::padded_string text = io::to_padded(json);
  return parse(text, source, out, diag);
}

}  // namespace cs::readers
