#include "readers/json_fields.h"

#include <charconv>
#include <cmath>

#include "io/int_range.h"

namespace cs::readers {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

// An integer value (a float with an integral value is accepted too: 2.0 -> 2).
// Adds a warning and returns false for anything else.
bool read_int_or_warn(od::value& v, int64_t& out, io::JsonContext& ctx, const std::string& where,
                      std::string_view key) {
  io::Num n;
  io::NumRead r = io::read_num(v, n);
  if (r != io::NumRead::kOk) {
    io::warn_bad_number(v, r, ctx, where, key);
    return false;
  }
  if (!n.is_int && (n.v != std::floor(n.v) || std::fabs(n.v) > 9.0e18)) {
    ctx.warn_at(v.raw_json_token().data(),
                where + ": \"" + std::string(key) + "\" is " + io::describe_token(v) +
                    ", expected an integer",
                "the value was treated as missing");
    return false;
  }
  if (!io::double_to_int64(n.v, out)) {  // an integer beyond 64 bits (kept as a double)
    ctx.warn_at(v.raw_json_token().data(),
                where + ": \"" + std::string(key) + "\" is out of range for a 64-bit integer",
                "the value was treated as missing");
    return false;
  }
  return true;
}

// A rank (rank_id, group_rank, an entry of global_ranks): an integer in [0, 2^31). Warns and
// returns false for anything else (a rank of -1 or 2147483648 is never cut to 32 bits).
bool rank_in_range(od::value& v, int64_t r, int& out, io::JsonContext& ctx,
                   const std::string& where, std::string_view key) {
  if (r >= 0 && io::int64_to_int(r, out)) return true;
  ctx.warn_at(v.raw_json_token().data(),
              where + ": \"" + std::string(key) + "\" is " + std::to_string(r) +
                  ", out of range for a rank (0 to 2147483647)",
              "the value was treated as missing");
  return false;
}

error_code root_object(od::document& doc, od::object& obj, io::JsonContext& ctx,
                       std::string_view what) {
  error_code e = doc.get_object().get(obj);
  if (e == simdjson::INCORRECT_TYPE) {
    ctx.reported = true;
    ctx.error_at_offset(0, "the top level is not a JSON object",
                        "a " + std::string(what) + " holds one object; check the file");
  }
  return e;
}

// An integer, or a string holding one ("0", as torch_npu 2.7 writes rank_id). Warns otherwise.
bool read_int_or_string_int(od::value& v, int64_t& out, io::JsonContext& ctx,
                            const std::string& where, std::string_view key) {
  std::string_view s;
  if (v.get_string().get(s) == SUCCESS) {
    int64_t n = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), n);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) {
      out = n;
      return true;
    }
    ctx.warn_at(v.raw_json_token().data(),
                where + ": \"" + std::string(key) +
                    "\" is a string that is not a whole number, expected an integer",
                "the value was treated as missing");
    return false;
  }
  int64_t exact = 0;  // a 19-digit ns time does not survive a trip through double
  if (v.get_int64().get(exact) == SUCCESS) {
    out = exact;
    return true;
  }
  return read_int_or_warn(v, out, ctx, where, key);
}

}  // namespace cs::readers
