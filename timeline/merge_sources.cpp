#include "timeline/merge_sources.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>

#include "io/input_kind.h"
#include "load/discovery.h"
#include "load/rank_list.h"

namespace cs::timeline {

namespace fs = std::filesystem;

namespace {

std::string canonical_or_self(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

}  // namespace

const char* rank_origin_name(RankOrigin o) {
  switch (o) {
    case RankOrigin::kProfilerInfo:
      return "profiler_info";
    case RankOrigin::kDistributedInfo:
      return "distributedInfo";
    case RankOrigin::kFileName:
      return "file name";
    case RankOrigin::kOrder:
      return "order";
  }
  return "order";
}

std::optional<int> rank_from_file_name(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::optional<int> found;
  for (size_t at = lower.find("rank"); at != std::string::npos; at = lower.find("rank", at + 1)) {
    size_t i = at + 4;
    if (i < lower.size() && (lower[i] == '-' || lower[i] == '_')) ++i;
    int64_t r = 0;
    size_t digits = 0;
    for (; i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])) && digits < 9;
         ++i, ++digits)
      r = r * 10 + (lower[i] - '0');
    if (digits > 0) found = static_cast<int>(r);
  }
  return found;
}

MergeSources find_merge_sources(const std::string& dir, const MergeSourceOptions& opts) {
  MergeSources res;
  load::DiscoveryOptions dopts;
  dopts.max_depth = opts.max_depth;
  load::DiscoveryResult found = load::discover_ranks(dir, dopts);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    res.diag.append(found.diag);
    res.fatal = true;
    return res;
  }

  // Kineto traces outside rank directories.
  const std::string exclude = opts.exclude.empty() ? "" : canonical_or_self(opts.exclude);
  std::vector<std::string> kineto_paths;
  auto opt = fs::directory_options::skip_permission_denied;
  // DIR that is itself a rank directory: its trace_view.json is that rank's, not a Kineto trace.
  for (auto it = found.input_is_rank_dir ? fs::recursive_directory_iterator()
                                         : fs::recursive_directory_iterator(dir, opt, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    std::error_code ec2;
    if (e.is_directory(ec2)) {
      if (load::framework_from_dir_name(name) != load::Framework::kUnknown ||
          it.depth() >= opts.max_depth)
        it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec2)) continue;
    if (!name.ends_with(".json") && !name.ends_with(".json.gz")) continue;
    const std::string p = e.path().string();
    if (!exclude.empty() && canonical_or_self(p) == exclude) continue;
    kineto_paths.push_back(p);
  }
  if (ec)
    res.diag.warn(dir, 0, "cannot list every directory: " + ec.message(),
                  "traces in unreadable directories were not merged");
  std::sort(kineto_paths.begin(), kineto_paths.end());

  // Rank directories first; discovery's fatal "nothing found" only matters without Kineto.
  std::vector<MergeSource> all;
  for (const auto& d : found.diag.items())
    if (d.severity == io::Severity::kWarning) res.diag.add(d);
  res.skipped += static_cast<int>(found.skipped.size());
  std::set<int> no_timeline;  // rank directories without trace_view.json: said once below
  for (const load::RankEntry& e : found.ranks) {
    const std::string out_dir =
        e.output_dir.empty() ? e.path + "/ASCEND_PROFILER_OUTPUT" : e.output_dir;
    std::string tv = out_dir + "/trace_view.json";
    if (!fs::is_regular_file(tv, ec)) {
      if (opts.rank_filter && !opts.rank_filter->count(e.rank)) {
        ++res.filtered_out;
      } else {
        no_timeline.insert(e.rank);
        ++res.skipped;
      }
      continue;
    }
    all.push_back({e.rank, tv, RankOrigin::kProfilerInfo});
  }
  std::vector<MergeSource> unranked;
  for (const std::string& p : kineto_paths) {
    const io::InputClass c = io::classify_input(p);
    if (c.kind == io::InputKind::kUnreadable) {
      res.diag.error(p, 0, c.reason, "the file was not merged; check that it is complete");
      ++res.skipped;
    } else if (c.kind == io::InputKind::kMergedTrace) {
      res.diag.warn(p, 0, "an earlier merged trace; not merged again",
                    "write merged traces outside the input directory");
    }
    if (!io::is_timeline_kind(c.kind)) continue;
    const int rank = c.rank;
    MergeSource s{rank, p, RankOrigin::kDistributedInfo};
    if (rank < 0) {
      if (auto r = rank_from_file_name(fs::path(p).filename().string())) {
        s.rank = *r;
        s.origin = RankOrigin::kFileName;
      }
    }
    (s.rank < 0 ? unranked : all).push_back(std::move(s));
  }
  // Discovery's own fatal errors matter only when they are not "no rank directory" (which is
  // fine with Kineto traces, and reported below in merge's words when nothing at all is found).
  if (found.fatal && all.empty() && unranked.empty())
    for (const auto& d : found.diag.items())
      if (d.severity == io::Severity::kError && d.what.rfind("no rank directories", 0) != 0)
        res.diag.add(d);

  // One timeline per rank; the rest get the smallest free ranks.
  std::map<int, size_t> by_rank;
  std::vector<MergeSource> kept;
  for (MergeSource& s : all) {
    auto [it, added] = by_rank.emplace(s.rank, kept.size());
    if (!added) {
      res.diag.warn(s.path, 0,
                    "rank " + std::to_string(s.rank) + " (from " + rank_origin_name(s.origin) +
                        ") is already taken by " + kept[it->second].path + "; skipped",
                    "merge one timeline per rank (move the other file out of the directory)");
      ++res.skipped;
      continue;
    }
    kept.push_back(std::move(s));
  }
  int next = 0;
  for (MergeSource& s : unranked) {
    while (by_rank.count(next)) ++next;
    s.rank = next;
    s.origin = RankOrigin::kOrder;
    by_rank.emplace(next, kept.size());
    kept.push_back(std::move(s));
  }
  for (MergeSource& s : kept) {
    if (opts.rank_filter && !opts.rank_filter->count(s.rank)) {
      ++res.filtered_out;
      continue;
    }
    res.sources.push_back(std::move(s));
  }
  std::sort(res.sources.begin(), res.sources.end(),
            [](const MergeSource& a, const MergeSource& b) { return a.rank < b.rank; });
  // One line for every rank directory without a timeline, with the count and what to do.
  const std::string no_timeline_what =
      no_timeline.empty()
          ? std::string()
          : std::to_string(no_timeline.size()) + " rank director" +
                (no_timeline.size() == 1 ? "y has" : "ies have") +
                " no ASCEND_PROFILER_OUTPUT/trace_view.json (rank" +
                (no_timeline.size() == 1 ? " " : "s ") + load::format_rank_set(no_timeline) + ")";
  const std::string no_timeline_hint =
      "export the timeline with the profiler (torch_npu: export_type text), or for a job "
      "from clusterscope generate, generate it again with --trace-view";
  if (res.sources.empty() && kept.empty() && !no_timeline.empty()) {
    res.diag.error(dir, 0,
                   no_timeline_what +
                       ", and no PyTorch profiler trace is there: nothing "
                       "to merge",
                   no_timeline_hint);
    res.fatal = true;
    return res;
  }
  if (!no_timeline.empty())
    res.diag.warn(dir, 0, no_timeline_what + "; those ranks were not merged",
                  no_timeline_hint + " (or leave them out with --ranks)");
  if (res.sources.empty()) {
    res.diag.error(dir, 0,
                   kept.empty() ? "no timeline found (trace_view.json in rank directories, or "
                                  "PyTorch profiler *.json / *.json.gz traces)"
                                : "no timeline left after the rank filter",
                   kept.empty() ? "check the path" : "check --ranks against the ranks present");
    res.fatal = true;
  }
  return res;
}

}  // namespace cs::timeline
