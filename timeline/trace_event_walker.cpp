#include "timeline/trace_event_walker.h"

namespace cs::timeline {

namespace {

std::string_view trim_right(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

simdjson::error_code raw_value(od::value v, std::string_view& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    return o.raw_json().get(out);
  }
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return e;
    return a.raw_json().get(out);
  }
  out = trim_right(v.raw_json_token());
  return simdjson::SUCCESS;
}

bool split_object(od::parser& parser, std::string_view text,
                  std::vector<std::pair<std::string, std::string>>& out) {
  out.clear();
  simdjson::padded_string copy(text);
  od::document doc;
  if (parser.iterate(copy).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  for (auto f : obj) {
    od::field fld;
    if (std::move(f).get(fld)) return false;
    std::string_view key = io::raw_key(fld), val;
    if (raw_value(fld.value(), val)) return false;
    out.emplace_back(std::string(key), std::string(val));
  }
  return true;
}

void EventWalker::classify(std::string_view key, int idx) {
  switch (key.size()) {
    case 2:
      if (key == "ph")
        ev_.ph = idx;
      else if (key == "ts")
        ev_.ts = idx;
      else if (key == "id")
        ev_.id = idx;
      break;
    case 3:
      if (key == "pid") ev_.pid = idx;
      break;
    case 4:
      if (key == "name")
        ev_.name = idx;
      else if (key == "args")
        ev_.args = idx;
      break;
    case 7:
      if (key == "bind_id") ev_.bind_id = idx;
      break;
    default:
      break;
  }
}

int64_t EventWalker::offset(od::document* doc) {
  const char* p = nullptr;
  if (!doc || doc->current_location().get(p)) return static_cast<int64_t>(json_.length());
  return p - json_.data();
}

bool EventWalker::fail(od::document* doc, simdjson::error_code err, const std::string& what) {
  const int64_t off = offset(doc);
  io::TextLocator loc(std::string_view(json_.data(), json_.length()));
  diag_.error(source_, loc.line_of(off), what + ": " + io::json_error_what(err), kSkipHint, off);
  return false;
}

void EventWalker::warn(od::document& doc, const std::string& what, const std::string& hint) {
  const int64_t off = offset(&doc);
  io::TextLocator loc(std::string_view(json_.data(), json_.length()));
  diag_.warn(source_, loc.line_of(off), what, hint, off);
}

}  // namespace cs::timeline
