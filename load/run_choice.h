#pragma once
// Two or more runs of the same rank below one input directory: which one to keep, and why.
//
// Order of the tests: a directory the tool can read beats one it cannot (no output directory, no
// per-rank file); then the newer run by a real timestamp — the directory name's
// ({host}_{pid}_{YYYYMMDDhhmmssSSS}_ascend_pt, or an epoch in ms/us/ns), else profiler_info's
// end_info.collectionTimeEnd / start_info.collectionTimeBegin. Runs with no timestamp cannot be
// ordered: the caller stops and lists them.

#include <cstdint>
#include <string>

#include "load/rank_data.h"

namespace cs::load {

// When a run was made, as far as its directory tells.
struct RunTime {
  int64_t dir_ns = 0;     // from the directory name's timestamp (ns since the epoch); 0 = none
  int64_t info_ns = 0;    // from profiler_info_{N}.json (collectionTimeEnd, else Begin); 0 = none
  std::string dir_text;   // "20250101123456789 = 2025-01-01 12:34:56.789 (directory name)"
  std::string info_text;  // "2025-01-09 07:48:04.023 UTC (profiler_info collection time)"
  // The best of the two for messages, "no timestamp" when neither is known.
  std::string text() const;
};

// The run time of a rank directory: its name's timestamp and its profiler_info file's times.
RunTime run_time_of(const RankEntry& e);

// The directory name's timestamp in ns since the epoch, 0 when it is not a time. Accepts
// YYYYMMDDhhmmssSSS (17 digits, torch_npu; read as UTC) and epochs of 10/13/16/19 digits
// (s/ms/us/ns). Example: "20250101123456789" -> 1735734896789000000.
int64_t dir_timestamp_ns(const std::string& timestamp);

enum class RunChoice { kFirst, kSecond, kUndecided };

// Which of two runs of one rank to keep; `why` is one sentence naming both timestamps (or what
// makes one unreadable). kUndecided: neither readability nor a timestamp tells them apart.
RunChoice choose_run(const RankEntry& a, const RunTime& ta, const RankEntry& b, const RunTime& tb,
                     std::string& why);

}  // namespace cs::load
