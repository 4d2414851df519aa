#include "readers/distributed_args_json.h"

#include <filesystem>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "io/json/json_file.h"
#include "io/json/json_writer.h"
#include "io/py_format.h"

namespace cs::readers {

namespace {

namespace od = simdjson::ondemand;

constexpr int kMaxDepth = 64;

// A string as json.dumps(ensure_ascii=True) writes it (io/json/json_writer.h).
void append_py_string(std::string& out, std::string_view s) {
  io::append_json_string(out, s, true);
}

bool append_value(std::string& out, od::value v, int depth, std::string_view skip_key);

bool append_object(std::string& out, od::object obj, int depth, std::string_view skip_key) {
  // Python's dict from json.loads: a repeated key keeps its first place and takes the last value.
  std::vector<std::pair<std::string, std::string>> fields;
  for (auto fr : obj) {
    od::field f;
    if (std::move(fr).get(f)) return false;
    std::string_view key;
    if (f.unescaped_key().get(key)) return false;
    if (!skip_key.empty() && key == skip_key) continue;
    std::string k(key);
    std::string rendered;
    if (!append_value(rendered, f.value(), depth + 1, {})) return false;
    bool seen = false;
    for (auto& field : fields) {
      if (field.first == k) {
        field.second = std::move(rendered);
        seen = true;
        break;
      }
    }
    if (!seen) fields.emplace_back(std::move(k), std::move(rendered));
  }
  out += '{';
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    append_py_string(out, fields[i].first);
    out += ": ";
    out += fields[i].second;
  }
  out += '}';
  return true;
}

// An integer beyond 64 bits: Python's int is exact at any size, so the digits as written, when
// they are an integer ("-" and digits only). simdjson 3.0 calls such a number an unsigned integer
// and then cannot read it as one.
bool append_big_integer(std::string& out, od::value v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  std::string_view digits = raw.substr(!raw.empty() && raw[0] == '-' ? 1 : 0);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  out += raw;
  return true;
}

bool append_number(std::string& out, od::value v) {
  od::number_type t;
  if (v.get_number_type().get(t)) return append_big_integer(out, v);
  switch (t) {
    case od::number_type::signed_integer: {
      int64_t i;
      if (v.get_int64().get(i)) return append_big_integer(out, v);
      out += std::to_string(i);
      return true;
    }
    case od::number_type::unsigned_integer: {
      uint64_t u;
      if (v.get_uint64().get(u)) return append_big_integer(out, v);
      out += std::to_string(u);
      return true;
    }
    case od::number_type::floating_point_number: {
      double d;
      if (v.get_double().get(d)) return false;
      io::append_py_repr(out, d);
      return true;
    }
  }
  return false;
}

bool append_value(std::string& out, od::value v, int depth, std::string_view skip_key) {
  if (depth > kMaxDepth) return false;
  od::json_type t;
  if (v.type().get(t)) return false;
  switch (t) {
    case od::json_type::object: {
      od::object obj;
      return !v.get_object().get(obj) && append_object(out, obj, depth, skip_key);
    }
    case od::json_type::array: {
      od::array arr;
      if (v.get_array().get(arr)) return false;
      out += '[';
      bool first = true;
      for (auto er : arr) {
        od::value e;
        if (std::move(er).get(e)) return false;
        if (!first) out += ", ";
        first = false;
        if (!append_value(out, e, depth + 1, {})) return false;
      }
      out += ']';
      return true;
    }
    case od::json_type::number:
      return append_number(out, v);
    case od::json_type::string: {
      std::string_view str;
      if (v.get_string().get(str)) return false;
      append_py_string(out, str);
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b)) return false;
      out += b ? "true" : "false";
      return true;
    }
    case od::json_type::null: {
      bool is_null = false;
      if (v.is_null().get(is_null) || !is_null) return false;
      out += "null";
      return true;
    }
  }
  return false;
}

// json.dumps of the JSON text's one value; false when it is not JSON. The text is read as the
// one element of an array, so a scalar at the top ("-0", "null") works like any other value.
bool dump_text(std::string_view json, std::string& out, std::string_view skip_key) {
  std::string wrapped;
  wrapped.reserve(json.size() + 2);
  wrapped += '[';
  wrapped += json;
  wrapped += ']';
  simdjson::padded_string padded(wrapped);
  od::parser parser;
  od::document doc;
  od::array arr;
  if (parser.iterate(padded).get(doc) || doc.get_array().get(arr)) return false;
  size_t n = 0;
  for (auto er : arr) {
    od::value v;
    if (std::move(er).get(v) || ++n > 1) return false;
    if (!append_value(out, v, 0, skip_key)) return false;
  }
  return n == 1;
}

}  // namespace

std::optional<std::string> python_json_dumps(std::string_view json, std::string_view skip_key) {
  std::string out;
  if (!dump_text(json, out, skip_key)) return std::nullopt;
  return out;
}

std::optional<std::string> distributed_args_python_json(const std::string& path,
                                                        io::Diagnostics& diag) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  simdjson::padded_string text;
  if (!io::load_json_file(path, text, diag)) return std::nullopt;
  // The document's distributed_args (the last one, as json.loads keeps), found by a first pass.
  od::parser parser;
  od::document doc;
  od::object obj;
  if (parser.iterate(text).get(doc) || doc.get_object().get(obj)) {
    diag.warn(path, 0, "profiler_metadata.json is not a JSON object",
              "ClusterBaseInfo is written from another rank's file, or not at all");
    return std::nullopt;
  }
  std::string_view args_json;
  bool is_object = false;
  for (auto fr : obj) {
    od::field f;
    if (std::move(fr).get(f)) break;
    std::string_view key;
    if (f.unescaped_key().get(key)) break;
    if (key != "distributed_args") continue;
    od::value v = f.value();
    od::json_type t;
    is_object = !v.type().get(t) && t == od::json_type::object;
    od::object args;
    if (is_object && !v.get_object().get(args)) {
      std::string_view raw;
      if (args.raw_json().get(raw)) return std::nullopt;
      args_json = raw;
    }
  }
  if (!is_object || args_json.empty()) return std::nullopt;
  std::string out;
  if (!dump_text(args_json, out, "rank")) {
    diag.warn(path, 0,
              "distributed_args cannot be rendered as Python writes it (invalid or nested "
              "too deep)",
              "ClusterBaseInfo is written from another rank's file, or not at all");
    return std::nullopt;
  }
  if (out == "{}" && args_json.find_first_not_of(" \t\r\n{}") == std::string_view::npos)
    return std::nullopt;  // {} is falsy for msprof-analyze: the next file is tried
  return out;
}

}  // namespace cs::readers
