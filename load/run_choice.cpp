#include "load/run_choice.h"

#include <cstdio>
#include <ctime>

#include "readers/profiler_info.h"

namespace cs::load {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "2025-01-01 12:34:56.789 UTC" for ns since the epoch.
std::string utc_text(int64_t ns) {
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>((ns / 1000000) % 1000));
  return buf;
}

// Readable: 2 = usable with per-rank files, 1 = usable with none of them, 0 = partial or skipped.
int readability(const RankEntry& e) {
  if (e.status != RankStatus::kOk || e.rank < 0) return 0;
  for (const auto& f : e.files)
    if (f.find("profiler_info") == std::string::npos &&
        f.find("profiler_metadata") == std::string::npos)
      return 2;
  return 1;
}

std::string unreadable_reason(const RankEntry& e) {
  if (!e.problems.empty()) return e.problems.front();
  return "none of the per-rank files clusterscope reads";
}

}  // namespace

int64_t dir_timestamp_ns(const std::string& ts) {
  if (!all_digits(ts)) return 0;
  const int64_t v = std::stoll(ts.size() > 18 ? ts.substr(0, 19) : ts);
  switch (ts.size()) {
    case 10:
      return v * 1000000000;
    case 13:
      return v * 1000000;
    case 16:
      return v * 1000;
    case 19:
      return v;
    case 17: {  // YYYYMMDDhhmmssSSS
      std::tm tm{};
      tm.tm_year = std::stoi(ts.substr(0, 4)) - 1900;
      tm.tm_mon = std::stoi(ts.substr(4, 2)) - 1;
      tm.tm_mday = std::stoi(ts.substr(6, 2));
      tm.tm_hour = std::stoi(ts.substr(8, 2));
      tm.tm_min = std::stoi(ts.substr(10, 2));
      tm.tm_sec = std::stoi(ts.substr(12, 2));
      if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
          tm.tm_min > 59 || tm.tm_sec > 60)
        return 0;
      const int64_t ms = std::stoi(ts.substr(14, 3));
      return static_cast<int64_t>(timegm(&tm)) * 1000000000 + ms * 1000000;
    }
    default:
      return 0;
  }
}

RunTime run_time_of(const RankEntry& e) {
  RunTime t;
  t.dir_ns = dir_timestamp_ns(e.timestamp);
  for (const auto& f : e.files) {
    if (!readers::rank_from_profiler_info_name(f)) continue;
    readers::ProfilerInfo info;
    io::Diagnostics scratch;  // an unreadable file just gives no time
    if (readers::read_profiler_info(e.path + "/" + f, info, scratch))
      t.info_ns = info.collection_end_ns > 0 ? info.collection_end_ns : info.collection_begin_ns;
    break;
  }
  if (t.dir_ns > 0) t.dir_text = e.timestamp + " = " + utc_text(t.dir_ns) + " (directory name)";
  if (t.info_ns > 0) t.info_text = utc_text(t.info_ns) + " UTC (profiler_info collection time)";
  return t;
}

std::string RunTime::text() const {
  if (!dir_text.empty()) return dir_text;
  if (!info_text.empty()) return info_text;
  return "no timestamp";
}

RunChoice choose_run(const RankEntry& a, const RunTime& ta, const RankEntry& b, const RunTime& tb,
                     std::string& why) {
  const int ra = readability(a), rb = readability(b);
  if (ra != rb) {
    const RankEntry& bad = ra > rb ? b : a;
    const RankEntry& good = ra > rb ? a : b;
    why = "kept " + good.path + ", which can be read, over " + bad.path + " (" +
          unreadable_reason(bad) + ")";
    return ra > rb ? RunChoice::kFirst : RunChoice::kSecond;
  }
  int64_t x = 0, y = 0;
  std::string tx, ty;
  if (ta.dir_ns > 0 && tb.dir_ns > 0) {
    x = ta.dir_ns, y = tb.dir_ns, tx = ta.dir_text, ty = tb.dir_text;
  } else if (ta.info_ns > 0 && tb.info_ns > 0) {
    x = ta.info_ns, y = tb.info_ns, tx = ta.info_text, ty = tb.info_text;
  } else {
    why = a.path + " (" + ta.text() + ") and " + b.path + " (" + tb.text() + ")";
    return RunChoice::kUndecided;
  }
  const bool first = x >= y;  // equal times: the first in path order
  const RankEntry& keep = first ? a : b;
  const RankEntry& drop = first ? b : a;
  why = "kept " + keep.path + " (" + (first ? tx : ty) + ") over " + drop.path + " (" +
        (first ? ty : tx) + ")" + (x == y ? ", same time: the first in path order" : "");
  return first ? RunChoice::kFirst : RunChoice::kSecond;
}

}  // namespace cs::load
