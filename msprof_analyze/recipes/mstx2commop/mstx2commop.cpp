#include "msprof_analyze/recipes/mstx2commop/mstx2commop.h"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "db/query_plan.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::mstx2commop {

namespace {

// Each communication marker with the device task it is tied to (by connectionId, or, as
// msprof-analyze joins, any task on the stream its JSON names), the message unescaped; the
// fields come from SQLite's JSON functions (the marker's JSON types kept). msprof-analyze's query.
constexpr const char* kQuery = R"(
WITH marker AS (
  SELECT m.startNs AS at, m.connectionId AS conn, replace(s.value, char(92) || '"', '"') AS value
  FROM MSTX_EVENTS m JOIN STRING_IDS s ON m.message = s.id)
SELECT t.startNs, t.endNs, t.connectionId, marker.value,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.opName') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.groupName') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.dataType') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.count') END
FROM marker JOIN TASK t
     ON marker.conn = t.connectionId
        OR (json_valid(marker.value)
            AND CAST(json_extract(marker.value, '$.streamId') AS INTEGER) = t.streamId)
WHERE marker.value LIKE '%"streamId":%' AND marker.value LIKE '%"count":%'
      AND marker.value LIKE '%"dataType":%' AND marker.value LIKE '%"groupName":%'
      AND marker.value LIKE '%"opName":%' AND marker.at >= ? AND marker.at <= ?)";

// SQLite's plan for kQuery: every marker (MSTX_EVENTS in rowid order, its text by STRING_IDS'
// key) against every TASK row in rowid order, the JSON parsed again for each pair (markers x
// tasks parses: seconds per rank).
const std::vector<std::string> kPlan = {"SCAN m", "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SCAN t"};

// kQuery's rows in that plan's order, each marker's stream id worked out once (a CAST has
// INTEGER affinity in the CTE's column as in the expression; NULL for a message that is not
// JSON, which the original's `json_valid(...) AND` makes false), the marker filters applied
// before the join instead of after it, and the OR split into two equality joins SQLite answers
// with automatic indexes (the second without the pairs the first has): the (marker, task) pairs
// are the same set, ordered by (marker rowid, task rowid) as the original plan emits them.
constexpr const char* kQueryOnce = R"(
WITH marker AS MATERIALIZED (
  SELECT id, conn, value,
         CASE WHEN json_valid(value)
              THEN CAST(json_extract(value, '$.streamId') AS INTEGER) END AS stream
  FROM (SELECT m.rowid AS id, m.startNs AS at, m.connectionId AS conn,
               replace(s.value, char(92) || '"', '"') AS value
        FROM MSTX_EVENTS m JOIN STRING_IDS s ON m.message = s.id)
  WHERE value LIKE '%"streamId":%' AND value LIKE '%"count":%'
        AND value LIKE '%"dataType":%' AND value LIKE '%"groupName":%'
        AND value LIKE '%"opName":%' AND at >= ? AND at <= ?),
pair AS (
  SELECT marker.id AS id, t.rowid AS task FROM marker JOIN TASK t ON t.connectionId = marker.conn
  UNION ALL
  SELECT marker.id, t.rowid FROM marker JOIN TASK t ON t.streamId = marker.stream
  WHERE NOT coalesce(t.connectionId = marker.conn, 0))
SELECT t.startNs, t.endNs, t.connectionId, marker.value,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.opName') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.groupName') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.dataType') END,
       CASE WHEN json_valid(marker.value) THEN json_extract(marker.value, '$.count') END
FROM pair JOIN marker ON marker.id = pair.id JOIN TASK t ON t.rowid = pair.task
ORDER BY pair.id, pair.task)";

enum Col { kStart, kEnd, kConn, kValue, kOpName, kGroup, kDataType, kCount };

void skip(const RankDbPaths& paths, const std::string& why, io::Diagnostics& diag) {
  diag.warn(paths.profiler_db, 0, why, "this rank gets no COMMUNICATION_OP from its mstx markers");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s)
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  return out;
}

// One marker row as msprof-analyze reads it.
struct Marker {
  frame::Cell start, end, conn;
  std::string op_type, group;
  std::string data_type;
  frame::Cell count;
};

}  // namespace

std::string double_hash(const std::string& group) {
  uint32_t h0 = 0, h1 = 0;
  for (size_t i = 0; i < group.size();) {
    // One code point of the UTF-8 text (Python iterates characters).
    const auto b = static_cast<unsigned char>(group[i]);
    const int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? b : b & (0x3F >> (len - 1));
    for (int k = 1; k < len && i + static_cast<size_t>(k) < group.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(group[i + static_cast<size_t>(k)]) & 0x3F);
    i += static_cast<size_t>(len);
    h0 = h0 * 29u + cp;
    h1 = h1 * 131u + cp;
  }
  return std::to_string((static_cast<uint64_t>(h0) << 32) | h1);
}

bool Mstx2Commop::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (db.has_table("COMMUNICATION_OP")) {
    skip(paths, "the rank has COMMUNICATION_OP already", diag);
    return false;
  }
  for (const char* t : {"MSTX_EVENTS", "STRING_IDS", "TASK", "ENUM_HCCL_DATA_TYPE"})
    if (!db.has_table(t)) {
      skip(paths, std::string("no table ") + t, diag);
      return false;
    }
  frame::Frame rows, types, strings;
  const std::vector<int64_t> range = {0, std::numeric_limits<int64_t>::max()};
  bool read = false;
  answer_query(
      "mstx2commop.markers",
      [&] {
        if (!db::query_plan_is(db.database(), kQuery, kPlan)) return false;
        read = db.query(kQueryOnce, range, rows, "MSTX_EVENTS", diag);
        return true;
      },
      [&] {
        read = db.query(kQuery, range, rows, "MSTX_EVENTS", diag);
        return true;
      });
  if (!read ||
      !db.query("SELECT id, name FROM ENUM_HCCL_DATA_TYPE", {}, types, "ENUM_HCCL_DATA_TYPE",
                diag) ||
      !db.query("SELECT id, value FROM STRING_IDS", {}, strings, "STRING_IDS", diag))
    return false;
  if (rows.rows() == 0 || types.rows() == 0 || strings.rows() == 0) {
    skip(paths, rows.rows() == 0 ? "no communication mstx marker" : "no data type or string ids",
         diag);
    return false;
  }
  // JSON or comma-separated fields, as the first marker's message is.
  std::vector<Marker> markers;
  const bool json = rows.columns[kValue].cells[0].str().starts_with("{");
  for (size_t r = 0; r < rows.rows(); ++r) {
    auto cell = [&](Col c) -> const frame::Cell& { return rows.columns[c].cells[r]; };
    Marker m{cell(kStart), cell(kEnd), cell(kConn), {}, {}, {}, {}};
    if (json) {
      if (cell(kOpName).kind != frame::Cell::Kind::kText ||
          cell(kGroup).kind != frame::Cell::Kind::kText ||
          cell(kDataType).kind != frame::Cell::Kind::kText) {
        diag.error(paths.profiler_db, 0,
                   "a communication mstx marker is not JSON with text opName, groupName and "
                   "dataType",
                   "this rank is skipped (msprof-analyze stops on it too)");
        return false;
      }
      m.op_type = cell(kOpName).str() + "_";
      m.group = cell(kGroup).str();
      m.data_type = cell(kDataType).str();
      m.count = cell(kCount);
    } else {
      const auto f = split(cell(kValue).str(), ',');
      if (f.size() != 4) continue;
      m.op_type = "hcom_" + (f[0].size() > 9 ? f[0].substr(9) : std::string()) + "_";
      m.group = f[1];
      m.data_type = f[2];
      m.count = frame::Cell::text(f[3]);
    }
    markers.push_back(std::move(m));
  }
  if (markers.empty()) {
    skip(paths, "no communication mstx marker with four fields", diag);
    return false;
  }
  std::map<std::string, int64_t> type_ids;  // lower-case name -> id
  for (size_t r = 0; r < types.rows(); ++r) {
    std::string n = types.columns[1].cells[r].str();
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    type_ids[n] = types.columns[0].cells[r].i();
  }
  std::map<std::string, int64_t> ids;  // STRING_IDS, the last id of a repeated text
  int64_t max_id = std::numeric_limits<int64_t>::min();
  for (size_t r = 0; r < strings.rows(); ++r) {
    ids[strings.columns[1].cells[r].str()] = strings.columns[0].cells[r].i();
    max_id = std::max(max_id, strings.columns[0].cells[r].i());
  }
  // Per (group, op type) in order of first appearance: the markers' sequence numbers.
  std::map<std::string, std::vector<size_t>> by_key;
  std::vector<std::string> key_order;
  for (size_t i = 0; i < markers.size(); ++i) {
    const std::string key = markers[i].group + markers[i].op_type;
    auto [it, added] = by_key.try_emplace(key);
    if (added) key_order.push_back(key);
    it->second.push_back(i);
  }
  std::vector<size_t> order;                       // markers in concatenation order
  std::vector<std::string> names(markers.size());  // their op names
  for (const auto& key : key_order) {
    const auto& members = by_key[key];
    for (size_t q = 0; q < members.size(); ++q) {
      const Marker& m = markers[members[q]];
      const std::string hash = double_hash(m.group);
      names[members[q]] = m.op_type + "_" + hash.substr(hash.size() > 3 ? hash.size() - 3 : 0) +
                          "_" + std::to_string(q) + "_1";
      order.push_back(members[q]);
    }
  }
  // New texts get the ids after STRING_IDS' largest: op types, op names, then groups.
  frame::Frame added;
  auto& add_id = added.add("id");
  auto& add_value = added.add("value");
  for (int pass = 0; pass < 3; ++pass) {
    std::set<std::string> seen;
    for (size_t i : order) {
      const std::string& s = pass == 0   ? markers[i].op_type
                             : pass == 1 ? names[i]
                                         : markers[i].group;
      if (ids.count(s) || !seen.insert(s).second) continue;
      add_id.push_back(
          frame::Cell::integer(max_id + 1 + static_cast<int64_t>(add_id.cells.size())));
      add_value.push_back(frame::Cell::text(s));
    }
  }
  for (size_t r = 0; r < added.rows(); ++r) ids[add_value.cells[r].str()] = add_id.cells[r].i();
  // COMMUNICATION_OP by start (stable), indexed by opId (the concatenation position).
  std::vector<size_t> by_start(order.size());
  for (size_t k = 0; k < by_start.size(); ++k) by_start[k] = k;
  std::stable_sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) {
    return frame::compare_cells(markers[order[a]].start, markers[order[b]].start) < 0;
  });
  frame::Frame op;
  for (const char* c : {"opId", "opName", "startNs", "endNs", "connectionId", "groupName", "relay",
                        "retry", "dataType", "algType", "count", "opType"})
    op.add(c);
  op.index_columns = 1;
  for (size_t k : by_start) {
    const size_t i = order[k];
    const Marker& m = markers[i];
    auto type = type_ids.find(m.data_type);
    if (type == type_ids.end()) {
      diag.error(paths.profiler_db, 0,
                 "a communication mstx marker names a data type ENUM_HCCL_DATA_TYPE lacks",
                 "this rank is skipped (msprof-analyze stops on it too)");
      return false;
    }
    const frame::Cell row[] = {frame::Cell::integer(static_cast<int64_t>(k)),
                               frame::Cell::integer(ids[names[i]]),
                               m.start,
                               m.end,
                               m.conn,
                               frame::Cell::integer(ids[m.group]),
                               frame::Cell::null(),
                               frame::Cell::null(),
                               frame::Cell::integer(type->second),
                               frame::Cell::null(),
                               m.count,
                               frame::Cell::integer(ids[m.op_type])};
    for (size_t c = 0; c < op.columns.size(); ++c) op.columns[c].push_back(row[c]);
  }
  for (const char* c : {"relay", "retry", "algType"})
    frame::find_column(op, c)->force_object = true;
  frame::Frame source;
  source.add("path").push_back(frame::Cell::text(paths.profiler_db));
  out["op"] = std::move(op);
  out["strings"] = std::move(added);
  out["source"] = std::move(source);
  return true;
}

namespace {

bool insert_strings(const std::string& db_path, const frame::Frame& strings,
                    const std::string& shown, io::Diagnostics& diag) {
  sqlite3* db = nullptr;
  bool ok = sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK;
  // The .tmp copy (write_rank_copy): no sync, no journal file (a failed copy is removed whole).
  ok = ok && sqlite3_exec(db, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr) == SQLITE_OK;
  ok = ok &&
       sqlite3_exec(db, "PRAGMA journal_mode = MEMORY", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_stmt* st = nullptr;
  ok =
      ok && sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "INSERT INTO STRING_IDS VALUES (?, ?)", -1, &st, nullptr) == SQLITE_OK;
  for (size_t r = 0; ok && r < strings.rows(); ++r) {
    const std::string& v = strings.columns[1].cells[r].str();
    sqlite3_bind_int64(st, 1, strings.columns[0].cells[r].i());
    sqlite3_bind_text(st, 2, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  ok = ok && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  if (!ok)
    diag.error(shown, 0, "cannot add the new texts to STRING_IDS",
               "check that the output directory is writable and has free space");
  return ok;
}

}  // namespace

bool write_communication_op(const std::string& db, const frame::FrameSet& mapped,
                            const std::string& shown, io::Diagnostics& diag) {
  return insert_strings(db, mapped.at("strings"), shown, diag) &&
         write_frame_sqlite(mapped.at("op"), db, "COMMUNICATION_OP", diag, 1);
}

bool Mstx2Commop::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                         io::Diagnostics& diag) const {
  bool ok = true;
  for (const auto& p : parts) {
    if (!p.used) continue;
    ok = p2p_pairing::write_rank_copy(
             out, dir_name(), p.frames.at("source").columns[0].cells[0].str(),
             [&](const std::string& tmp, const std::string& shown) {
               return write_communication_op(tmp, p.frames, shown, diag);
             },
             diag) &&
         ok;
  }
  return ok;
}

}  // namespace cs::recipes::mstx2commop
