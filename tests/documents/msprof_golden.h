#pragma once
// Helpers of the msprof-analyze golden tests: load a case directory of per-rank inputs
// (tests/data/golden/msprof/<case>/rank<N>/...) through the real io/ readers, and read files.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "load/rank_data.h"
#include "readers/communication.h"
#include "readers/matrix.h"
#include "readers/profiler_info.h"
#include "readers/step_trace.h"

namespace cs::test {

inline std::string golden_dir() {
  return std::string(CS_TEST_DATA) + "/golden/msprof";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every rank<N> directory of a case, parsed, sorted by rank.
inline std::vector<load::RankData> load_case(const std::string& case_name) {
  namespace fs = std::filesystem;
  std::vector<load::RankData> ranks;
  for (const auto& e : fs::directory_iterator(golden_dir() + "/" + case_name)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name.rfind("rank", 0) != 0) continue;
    load::RankData rd;
    rd.entry.rank = std::stoi(name.substr(4));
    rd.entry.path = e.path().string();
    const std::string d = e.path().string() + "/";
    if (fs::exists(d + "communication.json"))
      rd.has_communication = readers::read_communication_json(
          d + "communication.json", rd.communication.edit(), rd.diagnostics);
    if (fs::exists(d + "communication_matrix.json"))
      rd.has_matrix = readers::read_communication_matrix_json(d + "communication_matrix.json",
                                                              rd.matrix.edit(), rd.diagnostics);
    if (fs::exists(d + "profiler_metadata.json"))
      rd.has_metadata = readers::read_profiler_metadata(d + "profiler_metadata.json", rd.metadata,
                                                        rd.diagnostics);
    if (fs::exists(d + "step_trace_time.csv"))
      rd.has_step_trace = readers::read_step_trace_csv(d + "step_trace_time.csv",
                                                       rd.step_trace.edit(), rd.diagnostics);
    ranks.push_back(std::move(rd));
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.rank() < b.rank(); });
  return ranks;
}

inline std::string expected(const std::string& case_name, const std::string& file) {
  return slurp(golden_dir() + "/" + case_name + "/expected/" + file);
}

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("cs_msprof_" + name)).string();
}

// Index of the first differing byte, with some context, for readable failures.
inline std::string first_diff(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "identical";
  size_t from = i > 60 ? i - 60 : 0;
  return "first difference at byte " + std::to_string(i) + "\n  got:      ..." +
         a.substr(from, 140) + "\n  expected: ..." + b.substr(from, 140);
}

inline const char* const kCases[] = {"tp2pp2", "set_order", "stages8"};

}  // namespace cs::test
