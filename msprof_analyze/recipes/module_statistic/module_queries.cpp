#include "msprof_analyze/recipes/module_statistic/module_queries.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace cs::recipes::module_statistic {

const char* const kModulesSql = R"(
SELECT m.startNs, m.endNs, name.value
FROM MSTX_EVENTS AS m
     LEFT JOIN STRING_IDS AS name ON m.message = name.id
     LEFT JOIN STRING_IDS AS domain ON m.domainId = domain.id
WHERE m.eventType = 2 AND domain.value = 'Module'
ORDER BY m.startNs)";

const char* const kFwdBwdSql = R"(
SELECT fwd_s.value, fwd.startNs, fwd.endNs, bwd.startNs, bwd.endNs
FROM (SELECT connectionId, MIN(id) AS lo, MAX(id) AS hi FROM CONNECTION_IDS
      GROUP BY connectionId HAVING COUNT(*) > 1) AS c
     LEFT JOIN PYTORCH_API AS fwd ON fwd.connectionId = c.lo
     LEFT JOIN STRING_IDS AS fwd_s ON fwd_s.id = fwd.name
     LEFT JOIN PYTORCH_API AS bwd ON bwd.connectionId = c.hi
WHERE fwd_s.value NOT LIKE 'Enqueue%' AND fwd_s.value NOT LIKE 'Dequeue%'
ORDER BY c.connectionId)";

std::string kernel_query(const std::string& table) {
  const std::string tasks =
      table == "COMMUNICATION_OP"
          ? "SELECT s.value AS name, c.startNs, c.endNs, conn.id AS api_conn_id "
            "FROM COMMUNICATION_OP AS c JOIN STRING_IDS AS s ON s.id = c.opType "
            "JOIN CONNECTION_IDS AS conn ON conn.connectionId = c.connectionId"
          : "SELECT s.value AS name, t.startNs, t.endNs, conn.id AS api_conn_id FROM " + table +
                " AS c LEFT JOIN TASK AS t ON c.globalTaskId = t.globalTaskId "
                "LEFT JOIN STRING_IDS AS s ON s.id = c.name "
                "LEFT JOIN CONNECTION_IDS AS conn ON conn.connectionId = t.connectionId";
  return "WITH tc AS (" + tasks +
         ") SELECT tc.name, tc.startNs AS kernel_ts, tc.endNs AS kernel_end, op.value AS op_name, "
         "api.startNs AS op_ts, api.endNs AS op_end FROM tc "
         "JOIN PYTORCH_API AS api ON tc.api_conn_id = api.connectionId "
         "JOIN STRING_IDS AS op ON api.name = op.id ORDER BY op_ts, kernel_ts";
}

int64_t time_ns_text(std::string_view t) {
  if (t.empty()) return 0;
  int64_t i = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
  if (ec == std::errc() && end == t.data() + t.size()) return i;
  const std::string s(t);
  char* stop = nullptr;
  const double d = std::strtod(s.c_str(), &stop);
  return stop == s.c_str() + s.size() && std::isfinite(d) ? static_cast<int64_t>(d) : 0;
}

int64_t time_ns(const frame::Cell& v) {
  if (v.kind == frame::Cell::Kind::kInt) return v.i();
  if (v.kind == frame::Cell::Kind::kReal)
    return std::isfinite(v.num()) ? static_cast<int64_t>(v.num()) : 0;
  return time_ns_text(v.str());
}

}  // namespace cs::recipes::module_statistic
