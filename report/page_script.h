#pragma once
// The reports' inline script (no network, no library): every table sortable by any column (click
// a header) and filtered by a search box, long names shortened in the middle with the full name
// on hover, and a drill-down panel for a rank (click a rank cell, a finding or a bar with
// data-rank). Call page_data() first when the page has ranks, then page_script() at the end.
//
//   PageData d;  d.input_path = "/data/job";  d.slow_ranks = {300};  d.peer = 0;
//   page_data(h, d);  ...  page_script(h);

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/html_out.h"

namespace cs::report {

// What the drill-down needs beyond the page's tables.
struct PageData {
  std::string input_path;             // the job directory, for the merge command
  std::vector<long long> slow_ranks;  // judged slow
  long long peer = -1, peer2 = -1;    // healthy peers (the second when the first is asked)
  // Per rank: its coordinates (tp index, dp index, stage; -1 unknown), host (index into hosts,
  // -1 unknown) and groups (indices into groups: (label, hash)).
  struct RankInfo {
    long long tp = -1, dp = -1, stage = -1, host = -1;
    std::vector<size_t> groups;
  };
  std::map<long long, RankInfo> ranks;
  std::vector<std::string> hosts;
  std::vector<std::pair<std::string, std::string>> groups;
};

// A JSON string literal, safe inside a <script> element.
std::string json_string(std::string_view s);

// The views part of the script (heatmap, group picker, drill-down details).
std::string_view views_script();

// Writes <script type="application/json" id="cs-data"> with `d`.
void page_data(HtmlOut& h, const PageData& d);

// Writes the inline <script> (sorting, search, shortening, drill-down).
void page_script(HtmlOut& h);

}  // namespace cs::report
