#include "readers/profiler_info.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "io/int_range.h"
#include "io/json/json_input.h"
#include "readers/json_fields.h"

namespace cs::readers {

std::optional<int64_t> ProfilerMetadata::arg(std::string_view key) const {
  return distributed_args.get(key);
}

std::optional<int> rank_from_profiler_info_name(std::string_view filename) {
  size_t slash = filename.rfind('/');
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  constexpr std::string_view kPrefix = "profiler_info_";
  constexpr std::string_view kSuffix = ".json";
  if (!filename.starts_with(kPrefix) || !filename.ends_with(kSuffix)) return std::nullopt;
  std::string_view digits =
      filename.substr(kPrefix.size(), filename.size() - kPrefix.size() - kSuffix.size());
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  int n = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return std::nullopt;
  return n;
}

uint64_t group_double_hash(std::string_view group_id) {
  // msprof-analyze hashes ord(c) over a Python str: decode UTF-8 to code points (a stray byte that
  // starts no valid sequence counts as itself).
  uint32_t h0 = 0;
  uint32_t h1 = 0;
  for (size_t i = 0; i < group_id.size();) {
    const auto c = static_cast<unsigned char>(group_id[i]);
    uint32_t cp = c;
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    bool valid = len > 1 && i + len <= group_id.size();
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(group_id[i + k]) & 0xC0) == 0x80;
    if (valid) {
      cp = c & (0xFFu >> (len + 1));
      for (size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(group_id[i + k]) & 0x3Fu);
    } else {
      len = 1;
    }
    i += len;
    h0 = h0 * 29u + cp;
    h1 = h1 * 131u + cp;
  }
  return (static_cast<uint64_t>(h0) << 32) | h1;
}

std::string group_double_hash_str(std::string_view group_id) {
  return std::to_string(group_double_hash(group_id));
}

namespace {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

// config.experimental_config: _export_type (a string or a list of strings) and _profiler_level.
error_code walk_config(od::value& v, io::JsonContext& ctx, ProfilerInfo& out) {
  od::object cfg;
  error_code e = io::get_object_or_warn(
      v, cfg, ctx, [] { return std::string("the top level"); }, "config");
  if (e == simdjson::INCORRECT_TYPE) return SUCCESS;
  if (e) return e;
  for (auto cr : cfg) {
    od::field cf;
    if ((e = std::move(cr).get(cf))) return e;
    if (io::raw_key(cf) != "experimental_config") continue;
    od::value ev = cf.value();
    od::object exp;
    e = io::get_object_or_warn(
        ev, exp, ctx, [] { return std::string("config"); }, "experimental_config");
    if (e == simdjson::INCORRECT_TYPE) return SUCCESS;
    if (e) return e;
    for (auto xr : exp) {
      od::field xf;
      if ((e = std::move(xr).get(xf))) return e;
      const std::string_view xk = io::raw_key(xf);
      od::value tv = xf.value();
      std::string_view s;
      if (xk == "_profiler_level") {
        if (tv.get_string().get(s) == SUCCESS) out.profiler_level = std::string(s);
        continue;
      }
      if (xk != "_export_type") continue;
      od::array arr;
      if (tv.get_string().get(s) == SUCCESS) {
        out.export_types.emplace_back(s);
      } else if (tv.get_array().get(arr) == SUCCESS) {
        for (auto ar : arr) {
          od::value av;
          if ((e = std::move(ar).get(av))) return e;
          if (av.get_string().get(s) == SUCCESS) out.export_types.emplace_back(s);
        }
      }
    }
  }
  return SUCCESS;
}

error_code walk_info(od::document& doc, io::JsonContext& ctx, ProfilerInfo& out) {
  error_code e;
  auto field = [&](std::string_view k, od::value& v) -> error_code {
    if (k == "rank_id") {
      int64_t r = -1;
      if (read_int_or_string_int(v, r, ctx, "the top level", k))
        rank_in_range(v, r, out.rank_id, ctx, "the top level", k);
    } else if (k == "config") {
      if ((e = walk_config(v, ctx, out))) return e;
    } else if (k == "end_info" || k == "start_info") {
      od::object times;
      e = io::get_object_or_warn(
          v, times, ctx, [] { return std::string("the top level"); }, k);
      if (e == simdjson::INCORRECT_TYPE) return SUCCESS;
      if (e) return e;
      for (auto tr : times) {
        od::field tf;
        if ((e = std::move(tr).get(tf))) return e;
        std::string_view tk = io::raw_key(tf);
        if (tk != "collectionTimeEnd" && tk != "collectionTimeBegin") continue;
        od::value tv = tf.value();
        int64_t t = 0;
        if (!read_int_or_string_int(tv, t, ctx, std::string(k), tk)) continue;
        (tk == "collectionTimeEnd" ? out.collection_end_ns : out.collection_begin_ns) = t;
      }
    } else if (k == "torch_npu_version") {
      out.framework = "torch_npu";
    } else if (k == "ms_version" || k == "mindspore_version") {
      out.framework = "mindspore";
    }
    return SUCCESS;
  };
  return for_each_root_field(doc, ctx, "profiler_info file", field);
}

// A group as the walk reads it, made a ParallelGroup (its shape shared) once the file is read.
struct GroupDraft {
  ParallelGroup::Shape shape;
  int group_rank = -1;
};

error_code walk_group(od::object& obj, GroupDraft& g, io::JsonContext& ctx) {
  error_code e;
  auto where = [&] { return "group '" + g.shape.group_id + "'"; };
  for (auto fr : obj) {
    od::field f;
    if ((e = std::move(fr).get(f))) return e;
    std::string_view k = io::raw_key(f);
    od::value v = f.value();
    if (k == "group_name") {
      std::string_view s;
      e = v.get_string().get(s);
      if (e == simdjson::INCORRECT_TYPE) {
        ctx.warn_at(
            v.raw_json_token().data(),
            where() + ": \"group_name\" is " + io::describe_token(v) + ", expected a string",
            "the value was treated as missing");
        continue;
      }
      if (e) return e;
      g.shape.group_name.assign(s);
    } else if (k == "group_rank") {
      int64_t r = -1;
      if (read_int_or_warn(v, r, ctx, where(), k))
        rank_in_range(v, r, g.group_rank, ctx, where(), k);
    } else if (k == "global_ranks") {
      od::array arr;
      e = io::get_array_or_warn(v, arr, ctx, where, k);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      for (auto er : arr) {
        od::value ev;
        if ((e = std::move(er).get(ev))) return e;
        int64_t r = -1;
        int rank = -1;
        if (read_int_or_warn(ev, r, ctx, where(), "global_ranks") &&
            rank_in_range(ev, r, rank, ctx, where(), "global_ranks"))
          g.shape.global_ranks.push_back(rank);
      }
    }
  }
  return SUCCESS;
}

error_code walk_metadata(od::document& doc, io::JsonContext& ctx, ProfilerMetadata& out,
                         std::vector<GroupDraft>& groups_read) {
  error_code e;
  auto field = [&](std::string_view k, od::value& v) -> error_code {
    if (k == "distributed_args") {
      od::object args;
      e = io::get_object_or_warn(
          v, args, ctx, [] { return std::string("the top level"); }, k);
      if (e == simdjson::INCORRECT_TYPE) return SUCCESS;
      if (e) return e;
      out.has_distributed_args = true;
      // The entries are gathered in a map and stored once, however the walk ends (a damaged
      // file keeps what was read), so only the whole map is interned.
      DistributedArgs::Map entries = out.distributed_args.to_map();
      struct Store {
        DistributedArgs& to;
        DistributedArgs::Map& from;
        ~Store() { to = DistributedArgs(from); }
      } store{out.distributed_args, entries};
      std::set<std::string> arg_names;
      bool repeated_arg = false;
      for (auto ar : args) {
        od::field af;
        if ((e = std::move(ar).get(af))) return e;
        std::string_view name;
        if ((e = af.unescaped_key().get(name))) return e;
        od::value av = af.value();
        // Only integer entries are kept; flags and strings (sequence_parallel: true, ...) are not
        // used and pass silently.
        // A key written twice: the last value holds, as in Python's json (said once).
        if (!arg_names.insert(std::string(name)).second && !repeated_arg) {
          repeated_arg = true;
          ctx.warn_at(av.raw_json_token().data(),
                      "distributed_args: a key is written more than once",
                      "the last value was used, as Python's json module does");
          entries.erase(std::string(name));
        }
        io::Num n;
        int64_t iv = 0;
        if (io::read_num(av, n) == io::NumRead::kOk && n.is_int && io::double_to_int64(n.v, iv))
          entries[std::string(name)] = iv;
        else
          entries.erase(std::string(name));
      }
    } else if (k == "parallel_group_info") {
      od::object groups;
      e = io::get_object_or_warn(
          v, groups, ctx, [] { return std::string("the top level"); }, k);
      if (e == simdjson::INCORRECT_TYPE) return SUCCESS;
      if (e) return e;
      bool repeated_group = false;
      for (auto gr : groups) {
        od::field gf;
        if ((e = std::move(gr).get(gf))) return e;
        std::string_view id;
        if ((e = gf.unescaped_key().get(id))) return e;
        od::value gv = gf.value();
        od::object gobj;
        e = io::get_object_or_warn(
            gv, gobj, ctx, [] { return std::string("parallel_group_info"); }, id);
        if (e == simdjson::INCORRECT_TYPE) continue;
        if (e) return e;
        // A group id written twice: the last one holds, as in Python's json (said once).
        const auto same = std::find_if(groups_read.begin(), groups_read.end(),
                                       [&](const GroupDraft& p) { return p.shape.group_id == id; });
        if (same != groups_read.end()) {
          if (!repeated_group)
            ctx.warn_at(gv.raw_json_token().data(),
                        "parallel_group_info: a group id is written more than once",
                        "the last one was used, as Python's json module does");
          repeated_group = true;
          groups_read.erase(same);
        }
        GroupDraft& g = groups_read.emplace_back();
        g.shape.group_id.assign(id);
        if ((e = walk_group(gobj, g, ctx))) {
          ctx.where = "group '" + g.shape.group_id + "'";
          groups_read.pop_back();
          return e;
        }
      }
    }
    return SUCCESS;
  };
  return for_each_root_field(doc, ctx, "profiler_metadata.json", field);
}

// Global ranks at or beyond distributed_args' world_size cannot be: dropped, said once.
void drop_ranks_beyond_world(const ProfilerMetadata& m, std::vector<GroupDraft>& groups,
                             const std::string& source, io::Diagnostics& diag) {
  const std::optional<int64_t> world = m.distributed_args.get("world_size");
  if (!world || *world <= 0) return;
  const int64_t w = *world;
  size_t dropped = 0;
  for (GroupDraft& g : groups) {
    const size_t before = g.shape.global_ranks.size();
    std::erase_if(g.shape.global_ranks, [&](int r) { return r >= w; });
    dropped += before - g.shape.global_ranks.size();
  }
  if (dropped > 0)
    diag.warn(source, 0,
              std::to_string(dropped) +
                  " global rank(s) of parallel_group_info are not below "
                  "distributed_args' world_size " +
                  std::to_string(w),
              "they were left out of their groups; check the file");
}

bool metadata_padded(simdjson::padded_string_view text, const std::string& source,
                     ProfilerMetadata& out, io::Diagnostics& diag) {
  out = ProfilerMetadata{};
  std::vector<GroupDraft> groups;
  bool got = false;
  io::JsonWalkStatus st = io::walk_json_document(
      text, source, diag, /*keep_depth=*/2,
      [&out, &groups](od::document& doc, io::JsonContext& ctx) {
        out = ProfilerMetadata{};
        groups.clear();
        return walk_metadata(doc, ctx, out, groups);
      },
      &got);
  drop_ranks_beyond_world(out, groups, source, diag);
  out.parallel_groups.reserve(groups.size());
  for (GroupDraft& g : groups) out.parallel_groups.emplace_back(std::move(g.shape), g.group_rank);
  return st == io::JsonWalkStatus::kOk || (st == io::JsonWalkStatus::kDamaged && got);
}

}  // namespace

namespace {

// Parses profiler_info text; `source` is the file's path (its name gives the rank).
bool info_padded(simdjson::padded_string_view text, const std::string& source, ProfilerInfo& out,
                 io::Diagnostics& diag) {
  out = ProfilerInfo{};
  bool got = false;
  io::JsonWalkStatus st = io::walk_json_document(
      text, source, diag, /*keep_depth=*/1,
      [&out](od::document& doc, io::JsonContext& ctx) {
        out = ProfilerInfo{};
        return walk_info(doc, ctx, out);
      },
      &got);
  // The file name's N is authoritative; the rank_id inside should agree.
  std::optional<int> from_name = rank_from_profiler_info_name(source);
  if (from_name) {
    if (out.rank_id >= 0 && out.rank_id != *from_name) {
      diag.warn(source, 0,
                "rank_id " + std::to_string(out.rank_id) + " inside the file disagrees with rank " +
                    std::to_string(*from_name) + " in its name",
                "the rank in the file name is used");
    }
    out.rank_id = *from_name;
    return true;  // the name alone identifies the rank
  }
  return st == io::JsonWalkStatus::kOk || (st == io::JsonWalkStatus::kDamaged && got);
}

}  // namespace

bool read_profiler_info(const std::string& path, ProfilerInfo& out, io::Diagnostics& diag) {
  out = ProfilerInfo{};
  simdjson::padded_string text;
  if (!io::load_json_file(path, text, diag)) return false;
  return info_padded(text, path, out, diag);
}

bool parse_profiler_info(std::string_view json, const std::string& source, ProfilerInfo& out,
                         io::Diagnostics& diag) {
  simdjson::padded_string text = io::to_padded(json);
  return info_padded(text, source, out, diag);
}

bool read_profiler_metadata(const std::string& path, ProfilerMetadata& out, io::Diagnostics& diag) {
  out = ProfilerMetadata{};
  simdjson::padded_string text;
  if (!io::load_json_file(path, text, diag)) return false;
  return metadata_padded(text, path, out, diag);
}

bool parse_profiler_metadata(std::string_view json, const std::string& source,
                             ProfilerMetadata& out, io::Diagnostics& diag) {
  simdjson::padded_string text = io::to_padded(json);
  return metadata_padded(text, source, out, diag);
}

}  // namespace cs::readers
