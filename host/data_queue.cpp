// read_data_queue: MindSpore's device queue records (data_queue.h).

#include "host/data_queue.h"

#include <charconv>
#include <fstream>
#include <string_view>

namespace cs::host {

namespace {

// Five blank-separated integers, or false.
bool five_ints(std::string_view s, int64_t (&v)[5]) {
  size_t i = 0;
  for (int k = 0; k < 5; ++k) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v[k]);
    if (ec != std::errc()) return false;
    i = static_cast<size_t>(p - s.data());
  }
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  return i == s.size();
}

}  // namespace

bool read_data_queue(const std::string& path, DataQueueStats& out, io::Diagnostics& diag) {
  out = DataQueueStats{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.warn(path, 0, "cannot open the data queue file", "check it is readable");
    return false;
  }
  std::string line;
  int64_t n = 0, bad = 0, first_bad = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    int64_t v[5];
    if (!five_ints(line, v)) {
      if (bad++ == 0) first_bad = n;
      continue;
    }
    if (v[0] != 1) continue;  // type 1: the queue size when the batch was taken
    ++out.batches;
    out.empty += v[3] == 0;
  }
  if (bad > 0)
    diag.warn(path, first_bad,
              std::to_string(bad) +
                  " line(s) are not five integers (type extra_info batch_num "
                  "value time_stamp) and were skipped",
              "is this MindSpore's device_queue/dataset_iterator profiling file?");
  return out.batches > 0;
}

}  // namespace cs::host
