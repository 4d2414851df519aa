#include "load/manifest.h"

#include "io/text_escape.h"

namespace cs::load {

namespace {

// One cell, problems separated by "; ", each escaped (io/text_escape.h): `cat` of the manifest
// shows names with control characters as \n, \x1b.
std::string join_problems(const std::vector<std::string>& problems) {
  std::string s;
  for (const auto& p : problems) {
    if (!s.empty()) s += "; ";
    io::append_escaped_text(s, p);
  }
  return s;
}

}  // namespace

io::Table build_manifest_table(const std::vector<RankData>& ranks,
                               const std::vector<RankEntry>& skipped) {
  io::Table t("rank_manifest");
  auto& rank = t.add_int("rank");
  auto& path = t.add_string("path");
  auto& framework = t.add_string("framework");
  auto& status = t.add_string("status");
  auto& files = t.add_int("files_read");
  auto& bytes = t.add_int("bytes_read", "bytes");
  auto& problems = t.add_string("problems");
  auto& exported = t.add_string("export");
  auto row = [&](const RankEntry& e, int64_t nfiles, int64_t nbytes) {
    rank.ints.push_back(e.rank);
    path.strings.push_back(io::escape_text(e.path));  // a hostile name cannot act on a terminal
    framework.strings.push_back(framework_name(e.framework));
    status.strings.push_back(status_name(e.status));
    files.ints.push_back(nfiles);
    bytes.ints.push_back(nbytes);
    problems.strings.push_back(join_problems(e.problems));
    exported.strings.push_back(export_name(e.export_type));
  };
  for (const auto& d : ranks)
    row(d.entry, static_cast<int64_t>(d.files_read), static_cast<int64_t>(d.bytes_read));
  for (const auto& e : skipped) row(e, 0, 0);
  return t;
}

StatusCounts count_statuses(const std::vector<RankData>& ranks,
                            const std::vector<RankEntry>& skipped) {
  StatusCounts c;
  auto add = [&](RankStatus s) {
    if (s == RankStatus::kOk) ++c.ok;
    if (s == RankStatus::kPartial) ++c.partial;
    if (s == RankStatus::kSkipped) ++c.skipped;
  };
  for (const auto& d : ranks) add(d.entry.status);
  for (const auto& e : skipped) add(RankStatus::kSkipped), (void)e;
  return c;
}

}  // namespace cs::load
