#include "readers/msprof_info.h"

#include "io/json/json_file.h"
#include "io/json/json_input.h"
#include "readers/json_fields.h"

namespace cs::readers {

namespace {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

error_code walk_msprof_info(od::document& doc, io::JsonContext& ctx, MsprofInfo& out) {
  auto field = [&](std::string_view k, od::value& v) -> error_code {
    if (k == "rank_id") {
      int64_t r = -1;
      int rank = -1;
      // -1 is the producer's "no rank set": not a problem, just no rank.
      if (read_int_or_string_int(v, r, ctx, "the top level", k) && r != -1 &&
          rank_in_range(v, r, rank, ctx, "the top level", k))
        out.rank = rank;
    } else if (k == "hostUid") {
      std::string_view s;
      int64_t n = 0;
      if (v.get_string().get(s) == SUCCESS)
        out.host_uid = std::string(s);
      else if (v.get_int64().get(n) == SUCCESS)
        out.host_uid = std::to_string(n);
    }
    return SUCCESS;
  };
  return for_each_root_field(doc, ctx, "CANN info.json file", field);
}

bool msprof_info_padded(simdjson::padded_string_view text, const std::string& source,
                        MsprofInfo& out, io::Diagnostics& diag) {
  const int device = out.device;
  out = MsprofInfo{};
  out.device = device;
  bool got = false;
  io::JsonWalkStatus st = io::walk_json_document(
      text, source, diag, /*keep_depth=*/1,
      [&out](od::document& doc, io::JsonContext& ctx) { return walk_msprof_info(doc, ctx, out); },
      &got);
  return st == io::JsonWalkStatus::kOk || (st == io::JsonWalkStatus::kDamaged && got);
}

}  // namespace

std::optional<int> device_from_msprof_info_name(std::string_view filename) {
  size_t slash = filename.rfind('/');
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  constexpr std::string_view kPrefix = "info.json.";
  if (!filename.starts_with(kPrefix)) return std::nullopt;
  std::string_view digits = filename.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 2) return std::nullopt;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

bool read_msprof_info(const std::string& path, MsprofInfo& out, io::Diagnostics& diag) {
  out = MsprofInfo{};
  out.device = device_from_msprof_info_name(path).value_or(-1);
  simdjson::padded_string text;
  if (!io::load_json_file(path, text, diag)) return false;
  return msprof_info_padded(text, path, out, diag);
}

bool parse_msprof_info(std::string_view json, const std::string& source, MsprofInfo& out,
                       io::Diagnostics& diag) {
  out = MsprofInfo{};
  out.device = device_from_msprof_info_name(source).value_or(-1);
  simdjson::padded_string text = io::to_padded(json);
  return msprof_info_padded(text, source, out, diag);
}

}  // namespace cs::readers
