#include "readers/msprof_step_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "io/json/json_input.h"

namespace cs::readers {

namespace {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

bool digits(std::string_view s, size_t n) {
  return s.size() == n &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "msprof_20240101120000.json" -> "20240101120000"; "" for any other name.
std::string_view timeline_stamp(std::string_view n) {
  if (!n.starts_with("msprof_") || !n.ends_with(".json")) return {};
  std::string_view mid = n.substr(7, n.size() - 12);
  return digits(mid, 14) ? mid : std::string_view();
}
// "msprof_slice_0_20240101120000.json" -> "20240101120000"; "" for any other name.
std::string_view slice_stamp(std::string_view n) {
  if (!n.starts_with("msprof_slice_") || !n.ends_with(".json")) return {};
  std::string_view mid = n.substr(13, n.size() - 18);  // "0_20240101120000"
  if (mid.size() != 16 || mid[1] != '_' || !digits(mid.substr(0, 1), 1)) return {};
  return digits(mid.substr(2), 14) ? mid.substr(2) : std::string_view();
}

// The event sums, in Python's arithmetic (int until a float is added).
enum Sum { kComputing, kCommunication, kNotOverlapped, kFree, kBubble, kSumCount };

struct Sums {
  io::Num v[kSumCount] = {io::Num::integer(0), io::Num::integer(0), io::Num::integer(0),
                          io::Num::integer(0), io::Num::integer(0)};
  size_t bad_dur = 0;  // "dur" values float() refuses (msprof-analyze counts them as 0)
  std::string first_bad;
};

// float(s) of a "dur" string: surrounding whitespace allowed; false when Python would refuse it.
bool py_float(std::string_view s, double& out) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// One event's contribution, as the adapter's convert_to_float(event.get("dur", 0)).
error_code add_event(od::object& ev, Sums& sums) {
  int which = -1;
  io::Num dur = io::Num::integer(0);
  error_code e;
  for (auto fr : ev) {
    od::field f;
    if ((e = std::move(fr).get(f))) return e;
    const std::string_view k = io::raw_key(f);
    od::value v = f.value();
    if (k == "name") {
      std::string_view name;
      e = v.get_string().get(name);
      if (e == simdjson::INCORRECT_TYPE) continue;  // not a string: matches no name
      if (e) return e;
      if (name == "Computing")
        which = kComputing;
      else if (name == "Communication")
        which = kCommunication;
      else if (name == "Communication(Not Overlapped)")
        which = kNotOverlapped;
      else if (name == "Free")
        which = kFree;
      else if (name.starts_with("hcom_receive"))
        which = kBubble;
    } else if (k == "dur") {
      std::string_view s;
      e = v.get_string().get(s);
      if (e != SUCCESS && e != simdjson::INCORRECT_TYPE) return e;
      if (e == SUCCESS) {
        double d = 0;
        if (py_float(s, d)) {
          dur = io::Num::real(d);
        } else {
          if (sums.bad_dur++ == 0) sums.first_bad = "a string";
          dur = io::Num::integer(0);
        }
      } else if (io::read_num(v, dur) != io::NumRead::kOk) {
        if (sums.bad_dur++ == 0) sums.first_bad = io::describe_token(v);
        dur = io::Num::integer(0);
      }
    }
  }
  if (which >= 0) {
    // float(dur), or float(0) without one: the sum is a float from its first event on.
    dur.is_int = false;
    sums.v[which] += dur;
  }
  return SUCCESS;
}

bool parse_one(simdjson::padded_string_view text, const std::string& source, Sums& total,
               io::Diagnostics& diag) {
  Sums got;
  bool any = false;
  io::JsonWalkStatus st = io::walk_json_document(
      text, source, diag, /*keep_depth=*/2,
      [&](od::document& doc, io::JsonContext& ctx) -> error_code {
        got = total;  // a repaired (truncated) text is walked from scratch
        od::array events;
        error_code e = doc.get_array().get(events);
        if (e) {
          if (e == simdjson::INCORRECT_TYPE) {
            ctx.reported = true;
            ctx.error_at_offset(0, "the top level is not a JSON array",
                                "msprof_*.json is CANN's timeline, a [...] of events; check "
                                "that this is the right file");
          }
          return e;
        }
        for (auto item : events) {
          od::value v;
          if ((e = std::move(item).get(v))) return e;
          od::object ev;
          e = v.get_object().get(ev);
          if (e == simdjson::INCORRECT_TYPE) continue;  // not an event
          if (e) return e;
          if ((e = add_event(ev, got))) return e;
          ctx.got_data = true;
        }
        return SUCCESS;
      },
      &any);
  if (st == io::JsonWalkStatus::kFailed || (st == io::JsonWalkStatus::kDamaged && !any))
    return false;
  total = got;
  return true;
}

void fill(const Sums& s, StepTraceFile& out) {
  out.columns.assign(kStepTraceColumns.begin(), kStepTraceColumns.end());
  out.rows.clear();
  // float() of each sum; an int sum (no event) is 0.
  const double comp = s.v[kComputing].v, comm = s.v[kCommunication].v,
               not_ov = s.v[kNotOverlapped].v, free = s.v[kFree].v, bubble = s.v[kBubble].v;
  const double e2e = free + comp + not_ov;
  StepTraceRow row;
  row.values = {comp,         not_ov, comm - not_ov,   comm, free,
                e2e - bubble, bubble, not_ov - bubble, 0.0};
  out.rows.push_back(std::move(row));
}

}  // namespace

std::vector<std::string> msprof_timeline_files(const std::vector<std::string>& names) {
  std::string_view best;
  for (const auto& n : names) {
    const std::string_view ts = timeline_stamp(n);
    if (!ts.empty() && ts > best) best = ts;
  }
  std::vector<std::string> out;
  if (!best.empty()) {
    out.push_back("msprof_" + std::string(best) + ".json");
    return out;
  }
  for (const auto& n : names) {
    const std::string_view ts = slice_stamp(n);
    if (!ts.empty() && ts > best) best = ts;
  }
  for (const auto& n : names)
    if (!best.empty() && slice_stamp(n) == best) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

bool parse_msprof_step_trace(const std::vector<std::string_view>& texts,
                             const std::vector<std::string>& sources, StepTraceFile& out,
                             io::Diagnostics& diag) {
  Sums sums;
  for (size_t i = 0; i < texts.size(); ++i) {
    simdjson::padded_string text = io::to_padded(texts[i]);
    if (!parse_one(text, sources[i], sums, diag)) return false;
  }
  if (sums.bad_dur > 0)
    diag.warn(sources.empty() ? std::string() : sources.front(), 0,
              std::to_string(sums.bad_dur) +
                  " event(s) with a \"dur\" that is not a number (first: " + sums.first_bad + ")",
              "they were counted as 0, as msprof-analyze does");
  fill(sums, out);
  return true;
}

bool read_msprof_step_trace(const std::vector<std::string>& paths, StepTraceFile& out,
                            io::Diagnostics& diag) {
  Sums sums;
  for (const auto& path : paths) {
    io::JsonFileBuffer& buf = io::thread_json_buffer();
    if (!io::load_json_file(path, buf, diag)) return false;
    if (!parse_one(buf.view(), path, sums, diag)) return false;
  }
  if (sums.bad_dur > 0)
    diag.warn(paths.empty() ? std::string() : paths.front(), 0,
              std::to_string(sums.bad_dur) +
                  " event(s) with a \"dur\" that is not a number (first: " + sums.first_bad + ")",
              "they were counted as 0, as msprof-analyze does");
  fill(sums, out);
  return true;
}

}  // namespace cs::readers
