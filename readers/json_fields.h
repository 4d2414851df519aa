#pragma once
// Small field readers the readers of metadata files share (profiler_info_{N}.json,
// profiler_metadata.json, CANN's info.json.{N}): integers written as numbers or strings, ranks,
// and the root object. Each warns (file, place, what to do) and returns false for a bad value.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "io/json/json_input.h"

namespace cs::readers {

// An integer value (a float with an integral value is accepted too: 2.0 -> 2).
bool read_int_or_warn(simdjson::ondemand::value& v, int64_t& out, io::JsonContext& ctx,
                      const std::string& where, std::string_view key);

// A rank (rank_id, group_rank, an entry of global_ranks): an integer in [0, 2^31). A rank of -1
// or 2147483648 is never cut to 32 bits.
bool rank_in_range(simdjson::ondemand::value& v, int64_t r, int& out, io::JsonContext& ctx,
                   const std::string& where, std::string_view key);

// The document's top-level object; an error (and ctx.reported) when it is something else.
simdjson::error_code root_object(simdjson::ondemand::document& doc, simdjson::ondemand::object& obj,
                                 io::JsonContext& ctx, std::string_view what);

// Calls fn(key, value) for each field of the document's top-level object (root_object; got_data
// set once it is one) until fn returns an error, which is returned.
template <class Fn>
simdjson::error_code for_each_root_field(simdjson::ondemand::document& doc, io::JsonContext& ctx,
                                         std::string_view what, Fn fn) {
  simdjson::ondemand::object obj;
  simdjson::error_code e = root_object(doc, obj, ctx, what);
  if (e) return e;
  ctx.got_data = true;
  for (auto fr : obj) {
    simdjson::ondemand::field f;
    if ((e = std::move(fr).get(f))) return e;
    std::string_view k = io::raw_key(f);
    simdjson::ondemand::value v = f.value();
    if ((e = fn(k, v))) return e;
  }
  return simdjson::SUCCESS;
}

// An integer, or a string holding one ("0", as torch_npu 2.7 writes rank_id).
bool read_int_or_string_int(simdjson::ondemand::value& v, int64_t& out, io::JsonContext& ctx,
                            const std::string& where, std::string_view key);

}  // namespace cs::readers
