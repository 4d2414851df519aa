#include "compare/name_map.h"

#include "io/json/json_input.h"

namespace cs::compare {

namespace od = simdjson::ondemand;

bool parse_name_map(std::string_view json, const std::string& source, NameMap& out,
                    io::Diagnostics& diag) {
  const auto padded = io::to_padded(json);
  io::TextLocator loc(json);
  auto fail = [&](simdjson::error_code err, const char* at, const std::string& what) {
    const int64_t off = at ? at - padded.data() : -1;
    diag.error(source, off >= 0 ? loc.line_of(off) : 0,
               what + (err ? ": " + io::json_error_what(err) : std::string()),
               "write the map as a JSON object of strings, e.g. "
               "{\"Optimizer.step#SGD.step\": \"Optimizer.step#NpuFusedSGD.step\"}",
               off);
    return false;
  };
  od::document doc;
  if (auto err = io::thread_json_parser().iterate(padded).get(doc))
    return fail(err, nullptr, "op name map is not valid JSON");
  od::object obj;
  if (auto err = doc.get_object().get(obj))
    return fail(err, padded.data(), "op name map is not an object");
  for (auto f : obj) {
    od::field fld;
    if (auto err = std::move(f).get(fld)) {
      const char* at = nullptr;
      if (doc.current_location().get(at)) at = nullptr;
      return fail(err, at, "op name map is malformed");
    }
    std::string_view key, value;
    if (auto err = fld.unescaped_key().get(key)) return fail(err, nullptr, "bad key");
    std::string k(key);
    if (auto err = fld.value().get_string().get(value)) {
      const char* at = nullptr;
      if (doc.current_location().get(at)) at = nullptr;
      return fail(err, at, "value of \"" + k + "\" is not a string");
    }
    out.add(std::move(k), std::string(value));
  }
  return true;
}

bool read_name_map(const std::string& path, NameMap& out, io::Diagnostics& diag) {
  simdjson::padded_string text;
  if (!io::load_json_file(path, text, diag)) return false;
  return parse_name_map(std::string_view(text.data(), text.size()), path, out, diag);
}

}  // namespace cs::compare
