// Rank discovery on small trees built in a temp dir, and on a generated cluster.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_list.h"
#include "load/run_choice.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::load::discover_ranks;
using cs::load::DiscoveryOptions;
using cs::load::Framework;
using cs::load::parse_rank_list;
using cs::load::RankStatus;

namespace {

using cs::test::TempDir;
using cs::test::write_file;

// A torch_npu-style rank directory with profiler_info_{rank}.json and two output files.
fs::path make_rank(const fs::path& parent, const std::string& name, int rank,
                   const std::string& out = "ASCEND_PROFILER_OUTPUT") {
  fs::path d = parent / name;
  if (rank >= 0)
    write_file(d / ("profiler_info_" + std::to_string(rank) + ".json"),
               "{\"rank_id\": " + std::to_string(rank) + "}");
  write_file(d / out / "communication.json", "{}");
  write_file(d / out / "step_trace_time.csv", "Device_id,Step\n");
  return d;
}

}  // namespace

TEST(ParseRankList, RangesAndSingles) {
  std::set<int> s;
  std::string err;
  ASSERT_TRUE(parse_rank_list("0,2,8-11", s, err)) << err;
  EXPECT_EQ(s, (std::set<int>{0, 2, 8, 9, 10, 11}));
  ASSERT_TRUE(parse_rank_list(" 3 , 1-1 ", s, err)) << err;
  EXPECT_EQ(s, (std::set<int>{1, 3}));
}

TEST(ParseRankList, BadSyntax) {
  std::set<int> s;
  std::string err;
  EXPECT_FALSE(parse_rank_list("", s, err));
  EXPECT_FALSE(parse_rank_list("1,,2", s, err));
  EXPECT_FALSE(parse_rank_list("a", s, err));
  EXPECT_NE(err.find("'a'"), std::string::npos);
  EXPECT_FALSE(parse_rank_list("5-3", s, err));
  EXPECT_NE(err.find("ends before it starts"), std::string::npos);
  EXPECT_FALSE(parse_rank_list("-3", s, err));
  EXPECT_FALSE(parse_rank_list("1-2-3", s, err));
  EXPECT_TRUE(s.empty());
}

TEST(DirNames, FrameworkAndTimestamp) {
  EXPECT_EQ(cs::load::framework_from_dir_name("n1_123_1708156014257_ascend_pt"),
            Framework::kPyTorch);
  EXPECT_EQ(cs::load::framework_from_dir_name("n1_123_1708156014257_ascend_ms"),
            Framework::kMindSpore);
  EXPECT_EQ(cs::load::framework_from_dir_name("PROF_000001_20230628101435646_FKFLNPEPPRRCFCBA"),
            Framework::kMsprof);
  EXPECT_EQ(cs::load::framework_from_dir_name("ASCEND_PROFILER_OUTPUT"), Framework::kUnknown);
  EXPECT_EQ(cs::load::timestamp_from_dir_name("n1_123_1708156014257_ascend_pt"), "1708156014257");
  // Host names may hold '_' themselves: the field is counted from the end.
  EXPECT_EQ(cs::load::timestamp_from_dir_name("my_host_7_123_99_ascend_ms"), "99");
  EXPECT_EQ(cs::load::timestamp_from_dir_name("PROF_000001_20230628101435646_FKFLNPEPPRRCFCBA"),
            "20230628101435646");
}

TEST(Discovery, FindsRanksSortedWithFiles) {
  TempDir t;
  make_rank(fs::path(t.str()) / "a", "h_2_300_ascend_pt", 1);
  make_rank(fs::path(t.str()) / "b" / "c", "h_1_200_ascend_pt", 0);
  write_file(fs::path(t.str()) / "b" / "notes.txt", "x");
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal) << (res.diag.empty() ? "" : res.diag.items()[0].to_string());
  ASSERT_EQ(res.ranks.size(), 2u);
  EXPECT_EQ(res.ranks[0].rank, 0);
  EXPECT_EQ(res.ranks[1].rank, 1);
  EXPECT_EQ(res.ranks[0].framework, Framework::kPyTorch);
  EXPECT_EQ(res.ranks[0].timestamp, "200");
  EXPECT_EQ(res.ranks[0].output_dir, res.ranks[0].path + "/ASCEND_PROFILER_OUTPUT");
  EXPECT_EQ(
      res.ranks[0].files,
      (std::vector<std::string>{"profiler_info_0.json", "ASCEND_PROFILER_OUTPUT/communication.json",
                                "ASCEND_PROFILER_OUTPUT/step_trace_time.csv"}));
  EXPECT_EQ(res.ranks[0].bytes, std::string("{\"rank_id\": 0}").size() + 2 + 15);
  EXPECT_TRUE(res.skipped.empty());
  EXPECT_EQ(res.ranks[0].status, RankStatus::kOk);
}

TEST(Discovery, DoesNotDescendIntoRankDirectories) {
  TempDir t;
  fs::path outer = make_rank(t.str(), "h_1_100_ascend_pt", 0);
  // torch_npu keeps a PROF_ directory inside the rank directory: not another rank.
  make_rank(outer, "PROF_000001_20240101_ABC", 5, "mindstudio_profiler_output");
  auto res = discover_ranks(t.str());
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].rank, 0);
}

TEST(Discovery, DuplicateRankNewestTimestampWins) {
  TempDir t;
  make_rank(fs::path(t.str()) / "run1", "h_1_1708156014999_ascend_pt", 3);
  make_rank(fs::path(t.str()) / "run2", "h_1_1708156015000_ascend_pt", 3);
  make_rank(fs::path(t.str()) / "run0", "h_1_1608156015000_ascend_pt", 3);  // a year older
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].timestamp, "1708156015000");
  ASSERT_EQ(res.skipped.size(), 2u);
  for (const auto& s : res.skipped) {
    EXPECT_EQ(s.status, RankStatus::kSkipped);
    ASSERT_FALSE(s.problems.empty());
    EXPECT_NE(s.problems.back().find("another run of rank 3"), std::string::npos);
  }
  EXPECT_EQ(res.diag.warning_count(), 1u);  // said once, not once per duplicate
}

// torch_npu's names: {host}_{pid}_{YYYYMMDDhhmmssSSS}_ascend_pt. The later run wins although it
// sorts first by path, and the message gives both timestamps.
TEST(Discovery, DuplicateRunsByDirectoryNameDate) {
  TempDir t;
  make_rank(fs::path(t.str()) / "a", "node_7_20250101123456789_ascend_pt", 0);
  make_rank(fs::path(t.str()) / "b", "node_7_20241231235959000_ascend_pt", 0);
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].timestamp, "20250101123456789");
  ASSERT_EQ(res.skipped.size(), 1u);
  const std::string& why = res.skipped[0].problems.back();
  EXPECT_NE(why.find("2025-01-01 12:34:56.789"), std::string::npos) << why;
  EXPECT_NE(why.find("2024-12-31 23:59:59.000"), std::string::npos) << why;
  ASSERT_EQ(res.diag.warning_count(), 1u);
  EXPECT_NE(res.diag.items()[0].to_string().find("kept "), std::string::npos);
  EXPECT_EQ(cs::load::dir_timestamp_ns("20250101123456789"), 1735734896789000000LL);
  EXPECT_EQ(cs::load::dir_timestamp_ns("1708156014257"), 1708156014257000000LL);
  EXPECT_EQ(cs::load::dir_timestamp_ns("999"), 0);
  EXPECT_EQ(cs::load::dir_timestamp_ns("20251399123456789"), 0);  // month 13
}

// A real profiler_info file (ascend-real/text_level1 rank 0, collectionTimeEnd
// 1736408884023552840 = 2025-01-09 07:48:04.023 UTC) copied into two runs whose names carry no
// timestamp; the copy in "old/" has its end time moved back by one hour (3.6e12 ns).
TEST(Discovery, DuplicateRunsByProfilerInfoEndTime) {
  TempDir t;
  std::ifstream in(std::string(CS_TEST_DATA) + "/discovery/profiler_info_0.json");
  std::string real((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(real.find("1736408884023552840"), std::string::npos);
  std::string older = real;
  older.replace(older.find("1736408884023552840"), 19, "1736405284023552840");
  fs::path newer_dir = make_rank(fs::path(t.str()) / "new", "rank0_ascend_pt", 0);
  fs::path older_dir = make_rank(fs::path(t.str()) / "old", "rank0_ascend_pt", 0);
  write_file(newer_dir / "profiler_info_0.json", real);
  write_file(older_dir / "profiler_info_0.json", older);
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(fs::path(res.ranks[0].path).parent_path().filename(), "new");
  ASSERT_EQ(res.skipped.size(), 1u);
  const std::string& why = res.skipped[0].problems.back();
  EXPECT_NE(why.find("2025-01-09 07:48:04.023"), std::string::npos) << why;
  EXPECT_NE(why.find("2025-01-09 06:48:04.023"), std::string::npos) << why;

  // The same two runs with the end time removed from both: nothing tells them apart.
  std::string none = real;
  none.replace(none.find("1736408884023552840"), 19, "0");
  write_file(newer_dir / "profiler_info_0.json", none);
  write_file(older_dir / "profiler_info_0.json", none);
  auto res2 = discover_ranks(t.str());
  EXPECT_TRUE(res2.fatal);
  ASSERT_EQ(res2.diag.error_count(), 1u);
  const std::string msg = res2.diag.items().back().to_string();
  EXPECT_NE(msg.find("no timestamp"), std::string::npos) << msg;
  EXPECT_NE(msg.find((fs::path("new") / "rank0_ascend_pt").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find((fs::path("old") / "rank0_ascend_pt").string()), std::string::npos) << msg;
}

// A newer run the tool cannot read (no ASCEND_PROFILER_OUTPUT/) never shadows an older one it can.
TEST(Discovery, UnreadableRunNeverShadowsReadableOne) {
  TempDir t;
  make_rank(fs::path(t.str()) / "old", "h_1_20250101000000000_ascend_pt", 5);
  fs::path bad = fs::path(t.str()) / "new" / "h_1_20250202000000000_ascend_pt";
  write_file(bad / "profiler_info_5.json", "{\"rank_id\": 5}");
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].timestamp, "20250101000000000");
  EXPECT_EQ(res.ranks[0].status, RankStatus::kOk);
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_NE(res.skipped[0].problems.back().find("which can be read"), std::string::npos);
}

TEST(Discovery, MissingProfilerInfoIsSkippedWithReason) {
  TempDir t;
  make_rank(t.str(), "h_1_100_ascend_pt", 0);
  make_rank(t.str(), "h_2_100_ascend_pt", -1);
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_EQ(res.skipped[0].rank, -1);
  EXPECT_EQ(res.skipped[0].status, RankStatus::kSkipped);
  EXPECT_NE(res.skipped[0].problems[0].find("profiler_info"), std::string::npos);
  EXPECT_EQ(res.diag.warning_count(), 1u);
}

TEST(Discovery, MixedFrameworksIsFatal) {
  TempDir t;
  make_rank(t.str(), "h_1_100_ascend_pt", 0);
  make_rank(t.str(), "h_2_100_ascend_ms", 1);
  auto res = discover_ranks(t.str());
  EXPECT_TRUE(res.fatal);
  ASSERT_TRUE(res.diag.has_errors());
  EXPECT_NE(res.diag.items().back().what.find("PyTorch"), std::string::npos);
  EXPECT_NE(res.diag.items().back().what.find("MindSpore"), std::string::npos);
}

TEST(Discovery, ProfDirectories) {
  TempDir t;
  fs::path p = make_rank(t.str(), "PROF_000001_20230628101435646_FKFLNPEPPRRCFCBA", 2,
                         "mindstudio_profiler_output");
  write_file(p / "analyze" / "communication.json", "{}");
  make_rank(t.str(), "PROF_000002_20230628101435999_XYZ", 3, "mindstudio_profiler_output");
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 2u);
  EXPECT_EQ(res.ranks[0].framework, Framework::kMsprof);
  EXPECT_EQ(res.ranks[0].timestamp, "20230628101435646");
  EXPECT_EQ(res.ranks[0].output_dir, p.string() + "/analyze");  // analyze/ holds communication
  EXPECT_EQ(res.ranks[1].output_dir, res.ranks[1].path + "/mindstudio_profiler_output");
  EXPECT_NE(std::find(res.ranks[0].files.begin(), res.ranks[0].files.end(),
                      "mindstudio_profiler_output/step_trace_time.csv"),
            res.ranks[0].files.end());
}

// CANN msprof writes no profiler_info_{N}.json: the rank is info.json.{N}'s rank_id in a device
// directory (msprof-analyze's rule); a string rank_id is read too.
TEST(Discovery, ProfRankFromInfoJson) {
  TempDir t;
  fs::path a = make_rank(t.str(), "PROF_000001_20240101000000001_AAA", -1, "analyze");
  write_file(a / "device_3" / "info.json.3", "{\"hostUid\": \"77\", \"rank_id\": 11}");
  fs::path b = make_rank(t.str(), "PROF_000002_20240101000000002_BBB", -1, "analyze");
  write_file(b / "device_4" / "info.json.4", "{\"rank_id\": \"12\", \"hostUid\": 77}");
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 2u);
  EXPECT_EQ(res.ranks[0].rank, 11);
  EXPECT_EQ(res.ranks[0].path, a.string());
  EXPECT_NE(std::find(res.ranks[0].files.begin(), res.ranks[0].files.end(), "device_3/info.json.3"),
            res.ranks[0].files.end());
  EXPECT_EQ(res.ranks[1].rank, 12);
  EXPECT_TRUE(res.diag.empty());
}

// rank_id -1 everywhere: the devices numbered 0, 1, ... in (hostUid, device id) order, said once.
TEST(Discovery, ProfRanksNumberedByHostAndDevice) {
  TempDir t;
  const char* dirs[] = {"PROF_1_20240101000000001_A", "PROF_2_20240101000000002_B",
                        "PROF_3_20240101000000003_C"};
  const char* infos[][2] = {{"device_1", "{\"rank_id\": -1, \"hostUid\": \"200\"}"},
                            {"device_7", "{\"rank_id\": -1, \"hostUid\": \"100\"}"},
                            {"device_0", "{\"rank_id\": -1, \"hostUid\": \"200\"}"}};
  for (int i = 0; i < 3; ++i) {
    fs::path d = make_rank(t.str(), dirs[i], -1, "analyze");
    const std::string dev = infos[i][0];
    write_file(d / dev / ("info.json." + dev.substr(7)), infos[i][1]);
  }
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 3u);
  // (100, 7) -> 0, (200, 0) -> 1, (200, 1) -> 2
  EXPECT_NE(res.ranks[0].path.find("PROF_2_"), std::string::npos);
  EXPECT_NE(res.ranks[1].path.find("PROF_3_"), std::string::npos);
  EXPECT_NE(res.ranks[2].path.find("PROF_1_"), std::string::npos);
  ASSERT_EQ(res.diag.items().size(), 1u);
  EXPECT_NE(res.diag.items()[0].what.find("3 CANN PROF_ device(s) have no rank_id"),
            std::string::npos);
  // Ranks known for some: the ones without stay unknown (skipped), as in msprof-analyze.
  fs::path d = make_rank(t.str(), "PROF_4_20240101000000004_D", -1, "analyze");
  write_file(d / "device_2" / "info.json.2", "{\"rank_id\": 5}");
  auto mixed = discover_ranks(t.str());
  ASSERT_EQ(mixed.ranks.size(), 1u);
  EXPECT_EQ(mixed.ranks[0].rank, 5);
  EXPECT_EQ(mixed.skipped.size(), 3u);
}

TEST(Discovery, SymlinkLoopTerminatesAndAliasCountedOnce) {
  TempDir t;
  fs::path a = fs::path(t.str()) / "a";
  make_rank(a, "h_1_100_ascend_pt", 0);
  fs::create_directory_symlink(t.str(), a / "loop");  // a/loop -> root
  fs::create_directory_symlink(a / "h_1_100_ascend_pt", fs::path(t.str()) / "alias");
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_TRUE(res.skipped.empty());
}

// Issue 17, finding 8: links to rank directories elsewhere are followed and said (one line for
// all); links to the input directory, to "/" (above it) or in a loop are not walked again (one
// line); /proc, /sys and /dev are never entered, nor accepted as the input directory.
TEST(Discovery, SymlinksFollowedButBounded) {
  TempDir t, elsewhere;
  const fs::path root = fs::path(t.str()) / "job";
  make_rank(root, "h_1_100_ascend_pt", 0);
  make_rank(elsewhere.path(), "h_2_100_ascend_pt", 1);
  make_rank(elsewhere.path(), "h_3_100_ascend_pt", 2);
  fs::create_directory_symlink(fs::path(elsewhere.path()) / "h_2_100_ascend_pt",
                               root / "h_2_100_ascend_pt");
  fs::create_directory_symlink(elsewhere.path(), root / "more");
  fs::create_directory_symlink("/", root / "slash");
  fs::create_directory_symlink(root, root / "self");
  fs::create_directory_symlink("/proc", root / "proc");
  fs::create_directory_symlink(root / "x1", root / "x2");
  fs::create_directory_symlink(root / "x2", root / "x1");  // ELOOP
  auto res = discover_ranks(root.string());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 3u);
  EXPECT_EQ(res.ranks[2].rank, 2);
  std::string all;
  for (const auto& d : res.diag.items()) all += d.to_string() + "\n";
  EXPECT_EQ(res.diag.warning_count(), 3u) << all;
  EXPECT_NE(all.find("followed 2 symbolic link(s) out of the input directory"), std::string::npos)
      << all;
  EXPECT_NE(all.find("5 directory link(s) lead back to a directory already searched"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("1 path(s) lead into /proc, /sys or /dev"), std::string::npos) << all;

  for (const char* sys : {"/proc", "/sys/kernel", "/dev"}) {
    auto r = discover_ranks(sys);
    EXPECT_TRUE(r.fatal) << sys;
    ASSERT_EQ(r.diag.error_count(), 1u) << sys;
    EXPECT_NE(r.diag.items()[0].what.find("/proc, /sys or /dev"), std::string::npos);
  }
}

// The input directory may itself be a link (-d /data/latest -> a run's directory): it is walked
// as the directory it names, with no note, and a link inside it back to it is still a loop.
TEST(Discovery, InputDirectoryGivenThroughALink) {
  TempDir t;
  const fs::path job = fs::path(t.str()) / "job";
  make_rank(job, "h_1_100_ascend_pt", 0);
  make_rank(job, "h_2_100_ascend_pt", 1);
  const fs::path latest = fs::path(t.str()) / "latest";
  fs::create_directory_symlink(job, latest);
  fs::create_directory_symlink(latest, job / "again");  // back to the input through the link
  auto res = discover_ranks(latest.string());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 2u);
  EXPECT_EQ(res.ranks[1].rank, 1);
  std::string all;
  for (const auto& d : res.diag.items()) all += d.to_string() + "\n";
  EXPECT_EQ(res.diag.warning_count(), 1u) << all;
  EXPECT_NE(all.find("1 directory link(s) lead back"), std::string::npos) << all;
}

TEST(Discovery, DeepNesting) {
  TempDir t;
  fs::path d = t.str();
  for (int i = 0; i < 12; ++i) d /= "level" + std::to_string(i);
  make_rank(d, "h_1_100_ascend_pt", 7);
  auto res = discover_ranks(t.str());
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].rank, 7);

  DiscoveryOptions shallow;
  shallow.max_depth = 5;
  auto res2 = discover_ranks(t.str(), shallow);
  EXPECT_TRUE(res2.fatal);
  EXPECT_TRUE(res2.ranks.empty());
  EXPECT_GE(res2.diag.warning_count(), 1u);
}

TEST(Discovery, RankFilter) {
  TempDir t;
  for (int r = 0; r < 6; ++r) make_rank(t.str(), "h_" + std::to_string(r) + "_100_ascend_pt", r);
  DiscoveryOptions o;
  std::set<int> filter;
  std::string err;
  ASSERT_TRUE(parse_rank_list("0,3-4,9", filter, err));
  o.rank_filter = filter;
  auto res = discover_ranks(t.str(), o);
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 3u);
  EXPECT_EQ(res.ranks[1].rank, 3);
  EXPECT_EQ(res.filtered_out, 3);
  EXPECT_TRUE(res.skipped.empty());
  // Rank 9 does not exist: said once, with the ranks present.
  ASSERT_EQ(res.diag.warning_count(), 1u);
  const std::string msg = res.diag.items()[0].to_string();
  EXPECT_NE(msg.find("rank(s) 9 that are not in the data (ranks present: 0-5)"), std::string::npos)
      << msg;
  EXPECT_EQ(cs::load::format_rank_set({0, 1, 2, 3, 20, 30}), "0-3,20,30");
}

TEST(Discovery, NoUsableRankListsTheSkippedOnes) {
  TempDir t;
  make_rank(t.str(), "h_1_100_ascend_pt", -1);
  make_rank(t.str(), "h_2_100_ascend_pt", -1);
  auto res = discover_ranks(t.str());
  EXPECT_TRUE(res.fatal);
  ASSERT_EQ(res.skipped.size(), 2u);
  const std::string msg = res.diag.items().back().to_string();
  EXPECT_NE(msg.find("h_1_100_ascend_pt (no profiler_info"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h_2_100_ascend_pt (no profiler_info"), std::string::npos) << msg;
  EXPECT_EQ(res.diag.warning_count(), 1u);  // one warning for both directories
}

TEST(Discovery, MissingDirectoryAndEmptyTree) {
  auto res = discover_ranks("/nonexistent/clusterscope/dir");
  EXPECT_TRUE(res.fatal);
  EXPECT_TRUE(res.diag.has_errors());
  TempDir t;
  auto res2 = discover_ranks(t.str());
  EXPECT_TRUE(res2.fatal);
  EXPECT_NE(res2.diag.items().back().what.find("no rank directories"), std::string::npos);
}

TEST(Discovery, InputDirectoryIsItselfARankDirectory) {
  TempDir t;
  fs::path d = make_rank(t.str(), "h_1_100_ascend_ms", 4);
  auto res = discover_ranks(d.string());
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].framework, Framework::kMindSpore);
}

TEST(Discovery, GeneratedCluster) {
  TempDir t;
  cs::generator::GeneratorOptions opts;
  opts.ranks = 16;
  opts.tp = 4;
  opts.pp = 2;
  opts.steps = 1;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(cs::generator::generate_cluster(t.str(), opts, diag));
  auto res = discover_ranks(t.str());
  ASSERT_FALSE(res.fatal);
  ASSERT_EQ(res.ranks.size(), 16u);
  for (int r = 0; r < 16; ++r) {
    const auto& e = res.ranks[static_cast<size_t>(r)];
    EXPECT_EQ(e.rank, r);
    EXPECT_EQ(e.status, RankStatus::kOk);
    EXPECT_EQ(e.files.size(), 8u);  // info, metadata, 5 outputs, trace_view.json
    EXPECT_GT(e.bytes, 10000u);
  }
}

TEST(Discovery, TheSameOnAnyNumberOfThreads) {
  // Rank directories inspected on several threads come out as on one: the same ranks, files,
  // sizes and problems, the same skipped ones and messages, whatever thread saw which.
  TempDir t;
  const fs::path root(t.str());
  for (int r = 0; r < 150; ++r) {
    const fs::path parent = root / ("node" + std::to_string(r % 3));
    const std::string name =
        "h_" + std::to_string(r) + "_" + std::to_string(1708156041000LL + r) + "_ascend_pt";
    if (r % 17 == 5) {
      make_rank(parent, name, -1);  // no profiler_info: skipped
    } else if (r % 23 == 7) {
      make_rank(parent, name, r % 40);  // a second run of a rank, newer or older
    } else {
      make_rank(parent, name, r, r % 11 == 3 ? "elsewhere" : "ASCEND_PROFILER_OUTPUT");
    }
    if (r % 13 == 0) write_file(parent / name / "ASCEND_PROFILER_OUTPUT" / "analysis.db", "x");
  }
  auto describe = [](const cs::load::DiscoveryResult& res) {
    std::string s;
    for (const auto* list : {&res.ranks, &res.skipped})
      for (const auto& e : *list) {
        s += e.path + " r" + std::to_string(e.rank) + " " + std::to_string(e.bytes) + " " +
             e.output_dir + " " + std::to_string(static_cast<int>(e.status)) +
             std::to_string(static_cast<int>(e.export_type)) + ":";
        for (const auto& f : e.files) s += f + ",";
        for (const auto& p : e.problems) s += p + ";";
        s += "\n";
      }
    for (const auto& d : res.diag.items()) s += d.to_string() + "\n";
    return s;
  };
  DiscoveryOptions one;
  one.threads = 1;
  const auto want = discover_ranks(t.str(), one);
  ASSERT_FALSE(want.fatal) << describe(want);
  EXPECT_GT(want.ranks.size(), 100u);
  EXPECT_GT(want.skipped.size(), 5u);
  for (int threads : {2, 4, 7}) {
    DiscoveryOptions many;
    many.threads = threads;
    EXPECT_EQ(describe(discover_ranks(t.str(), many)), describe(want)) << threads << " threads";
  }
}
