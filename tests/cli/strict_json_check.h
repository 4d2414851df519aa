#pragma once
// Output-validity checks for JSON the binary writes (issue 17, finding 5): a file must be read by
// a strict parser (simdjson: no NaN/Infinity, no raw control characters, valid UTF-8) and by
// Python's json.load with NaN/Infinity refused, as MindStudio Insight and browsers refuse them.

#include <simdjson.h>

#include <string>

#include "cli/cli_test_util.h"

namespace cs::test {

// "" when simdjson's DOM parser accepts the whole file, else its error.
inline std::string strict_json_error(const std::string& path) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text)) return "cannot read " + path;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(text).get(doc)) return simdjson::error_message(err);
  return "";
}

// "" when python3's json.load reads the file with NaN/Infinity refused, else Python's error.
inline std::string python_json_error(const std::string& path) {
  const std::string log = path + ".pycheck.txt";
  const int rc = run_command(
      "python3 -c 'import json, sys\n"
      "def bad(c): raise ValueError(\"non-finite constant \" + c)\n"
      "json.load(open(sys.argv[1], encoding=\"utf-8\"), parse_constant=bad)' " +
          path,
      log);
  std::string out = rc == 0 ? "" : "rc " + std::to_string(rc) + ": " + read_file(log);
  std::remove(log.c_str());
  return out;
}

}  // namespace cs::test
