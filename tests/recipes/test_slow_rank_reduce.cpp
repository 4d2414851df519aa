// slow_rank's reduce walked rank by rank (msprof_analyze/recipes/slow_rank/slow_rank.h) writes the
// bytes of the reduce over the ranks' concatenated rows (the reduce slow_rank had before, kept here
// as the reference), on generated rows covering the recipe's edge cases: send/receive ops left
// out, a group whose op names occur unequally often (left out) and a NULL group (kept anyway),
// Dixon's test and the 3-sigma rule (ops with more than 100 rows; a tie for the shortest),
// a rank lacking a column (its start NULL), an empty and an unused rank; with every rank held,
// every rank parked on disk and half of them, the collective rows in memory or on disk past 1 and
// 97 rows, and in memory with one warning when no spill file can be made; and a job with nothing
// slow writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/slow_rank/slow_rank.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace frame = cs::frame;
using cs::recipes::RankPartial;
using cs::recipes::RecipeOutput;

namespace {

std::vector<frame::Cell> series_stats(const std::vector<double>& v) {
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {frame::Cell::integer(static_cast<int64_t>(n)),
          frame::Cell::real(frame::series_mean(v)),
          frame::Cell::real(frame::series_std(v)),
          frame::Cell::real(s.front()),
          frame::Cell::real(frame::numpy_quantile_linear(s, 0.25)),
          frame::Cell::real(median),
          frame::Cell::real(frame::numpy_quantile_linear(s, 0.75)),
          frame::Cell::real(s.back()),
          frame::Cell::real(frame::numpy_sum(v))};
}

bool contains(const frame::Cell& c, const char* part) {
  return c.kind == frame::Cell::Kind::kText && c.str().find(part) != std::string::npos;
}

struct Ordered {
  std::unordered_map<frame::Cell, size_t, frame::CellKeyHash, frame::CellKeyEqual> at;
  std::vector<frame::Cell> keys;
  std::vector<std::vector<size_t>> rows;
  std::vector<size_t>& of(const frame::Cell& k) {
    auto [it, added] = at.emplace(k, keys.size());
    if (added) {
      keys.push_back(k);
      rows.emplace_back();
    }
    return rows[it->second];
  }
};

// The reference: slow_rank's reduce over the concatenation of every rank's rows.
bool held_rank_reduce(const std::vector<const frame::Frame*>& frames, const RecipeOutput& out,
                      cs::io::Diagnostics& diag) {
  if (frames.empty()) return true;
  const frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  const auto& rank = frame::find_column(all, "rankId")->cells;
  const auto& group = frame::find_column(all, "groupName")->cells;
  const auto& op = frame::find_column(all, "opName")->cells;
  const auto& start = frame::find_column(all, "startNs")->cells;
  const auto& time = frame::find_column(all, "communication_time")->cells;
  Ordered groups;
  for (size_t r = 0; r < all.rows(); ++r)
    if (!contains(op[r], "send") && !contains(op[r], "receive")) groups.of(group[r]).push_back(r);
  std::vector<Ordered> ops(groups.keys.size());
  for (size_t g = 0; g < groups.keys.size(); ++g) {
    for (size_t r : groups.rows[g]) ops[g].of(op[r]).push_back(r);
    bool equal = true;
    for (const auto& rows : ops[g].rows) equal = equal && rows.size() == ops[g].rows[0].size();
    if (!equal && !groups.keys[g].is_null()) ops[g] = Ordered();
  }
  Ordered votes;
  frame::Frame stats;
  for (const char* c : {"SlowRank", "OpName", "GroupName", "Timestamp", "Count", "MeanNs", "StdNs",
                        "MinNs", "Q1Ns", "MedianNs", "Q3Ns", "MaxNs", "SumNs"})
    stats.add(c);
  for (size_t g = 0; g < groups.keys.size(); ++g)
    for (size_t o = 0; o < ops[g].keys.size(); ++o) {
      const auto& rows = ops[g].rows[o];
      std::vector<double> times;
      for (size_t r : rows) times.push_back(time[r].num());
      const auto slow = cs::recipes::slow_rank::judge_slow_ranks(times);
      if (slow.empty()) continue;
      std::string names;
      int64_t first = 0;
      for (size_t k = 0; k < slow.size(); ++k) {
        const size_t r = rows[slow[k]];
        votes.of(rank[r]).push_back(r);
        names += (k ? "," : "") + std::to_string(rank[r].i());
        first = k ? std::min(first, start[r].i()) : start[r].i();
      }
      std::vector<frame::Cell> row = {frame::Cell::text(names), ops[g].keys[o], groups.keys[g],
                                      frame::Cell::integer(first)};
      for (const frame::Cell& c : series_stats(times)) row.push_back(c);
      for (size_t c = 0; c < row.size(); ++c) stats.columns[c].push_back(row[c]);
    }
  if (votes.keys.empty()) return true;
  frame::Frame per_rank;
  auto& ids = per_rank.add("rankId");
  auto& counts = per_rank.add("slowAffectCount");
  per_rank.index_columns = 1;
  for (size_t k = 0; k < votes.keys.size(); ++k) {
    ids.push_back(votes.keys[k]);
    counts.push_back(frame::Cell::integer(static_cast<int64_t>(votes.rows[k].size())));
  }
  stats = frame::sort_by(stats, "Timestamp", true);
  return cs::recipes::dump_recipe_frame(per_rank, out, "SlowRankAnalysis", "rank_stats.csv",
                                        "SlowRank", diag) &&
         cs::recipes::dump_recipe_frame(stats, out, "SlowRankAnalysis", "slow_op_stats.csv",
                                        "SlowOpStats", diag);
}

// `ranks` ranks' rows: 3 groups of collectives (group1's op names unequally often, the NULL
// group's too), a 3-sigma group (12 rows a rank per op), send/receive; rank 3 lacks startNs, rank
// 5 has no rows, rank 6 is unused.
std::vector<RankPartial> generated_rank_parts(int ranks, bool slow) {
  std::mt19937_64 rng(7);
  std::vector<RankPartial> parts(ranks);
  for (int r = 0; r < ranks; ++r) {
    parts[r].rank = r;
    parts[r].used = r != 6;
    frame::Frame& f = parts[r].frames["rows"];
    for (const char* c : {"rankId", "groupName", "opName", "startNs", "communication_time"})
      if (r != 3 || std::string(c) != "startNs") f.add(c);
  }
  auto row = [&](int r, frame::Cell group, const std::string& op, int64_t start, double time) {
    if (r == 5) return;
    frame::Frame& f = parts[r].frames["rows"];
    frame::find_column(f, "rankId")->push_back(frame::Cell::integer(r));
    frame::find_column(f, "groupName")->push_back(group);
    frame::find_column(f, "opName")->push_back(frame::Cell::text(op));
    if (auto* c = frame::find_column(f, "startNs")) c->push_back(frame::Cell::integer(start));
    frame::find_column(f, "communication_time")->push_back(frame::Cell::real(time));
  };
  const std::vector<frame::Cell> groups = {frame::Cell::text("group0"), frame::Cell::text("group1"),
                                           frame::Cell::null()};
  for (int r = 0; r < ranks; ++r)
    for (int g = 0; g < 3; ++g)
      for (int i = 0; i < 30; ++i) {
        if (g > 0 && i == 29 && r % 2) continue;  // unequal op name counts
        const std::string op = (i % 2 ? "hcom_allReduce__" : "hcom_allGather__") +
                               std::to_string(g) + "_" + std::to_string(i);
        double t = 100 + static_cast<double>(rng() % 40) / 4;
        if (slow && i % 7 == 3 && r == (i / 7) % ranks) t = 1.5;  // the one waited for
        row(r, groups[g], op, 1000000 - 1000 * i + r, t);
        if (i % 5 == 0) row(r, groups[g], "hcom_send__" + std::to_string(i), 5, 1);
      }
  for (int r = 0; r < ranks; ++r)  // past 100 values per op: the 3-sigma rule
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 12; ++k) {
        double t = 200 + static_cast<double>((k * 7 + r) % 5);
        if (slow && i == 1 && r == 4 && k == 0) t = 2;
        if (slow && i == 2 && r == 0 && k == 3) t = 9000;  // the longest: the shortest votes,
        if (slow && i == 2 && (r == 8 || r == 9) && k == 5) t = 150;  // the first of a tie
        row(r, frame::Cell::text("big"), "hcom_broadcast__" + std::to_string(i), 50 + i, t);
      }
  return parts;
}

RecipeOutput rank_output(const fs::path& db) {
  RecipeOutput out;
  out.cluster_output_dir = db.parent_path().string();
  out.db_file = db.string();
  return out;
}

std::string held_rank_db(const std::vector<RankPartial>& parts, const fs::path& db) {
  cs::io::Diagnostics diag;
  std::vector<const frame::Frame*> frames;
  for (const auto& p : parts)
    if (p.used) frames.push_back(&p.frames.at("rows"));
  EXPECT_TRUE(held_rank_reduce(frames, rank_output(db), diag));
  EXPECT_FALSE(diag.has_errors());
  return fs::exists(db) ? cs::test::read_file(db) : std::string();
}

std::string walked_rank_db(const std::vector<RankPartial>& parts, const fs::path& db,
                           size_t rows_in_memory = cs::recipes::slow_rank::kRowsInMemory) {
  cs::io::Diagnostics diag;
  EXPECT_TRUE(
      cs::recipes::slow_rank::SlowRank(rows_in_memory).reduce(parts, rank_output(db), diag));
  EXPECT_FALSE(diag.has_errors());
  return fs::exists(db) ? cs::test::read_file(db) : std::string();
}

TEST(SlowRankReduce, RankByRankWritesTheConcatenationsBytes) {
  const fs::path dir = cs::test::temp_dir("slow-rank-reduce");
  const cs::recipes::slow_rank::SlowRank recipe;
  const auto held = generated_rank_parts(12, true);
  const std::string expected = held_rank_db(held, dir / "held.db");
  // Both tables; Dixon's votes, the 3-sigma votes (the first of the tie, rank 8), the NULL group
  // kept and group1 left out.
  const std::string dump = cs::test::dump_sqlite(dir / "held.db");
  ASSERT_NE(dump.find("SlowOpStats"), std::string::npos) << dump.substr(0, 2000);
  ASSERT_NE(dump.find("SlowRank"), std::string::npos);
  EXPECT_NE(dump.find("hcom_allGather__0_10"), std::string::npos);
  EXPECT_NE(dump.find("hcom_broadcast__1"), std::string::npos);
  EXPECT_NE(dump.find("t:8|t:hcom_broadcast__2"), std::string::npos);
  EXPECT_NE(dump.find("hcom_allGather__2_"), std::string::npos);
  EXPECT_EQ(dump.find("hcom_allGather__1_"), std::string::npos);
  for (int every : {0, 1, 2}) {  // none parked, every rank, every other rank
    auto parts = held;
    cs::recipes::FramePark store({&recipe});
    if (every > 0)
      for (auto& p : parts)
        if (p.rank % every == 0) store.park(0, p);
    if (every > 0) {
      ASSERT_FALSE(parts[0].parked.empty());
    }
    // The collective rows all in memory, and on disk past 1 and 97 rows.
    for (size_t in_memory : {cs::recipes::slow_rank::kRowsInMemory, size_t{1}, size_t{97}}) {
      const fs::path db =
          dir / ("walked-" + std::to_string(every) + "-" + std::to_string(in_memory) + ".db");
      EXPECT_TRUE(walked_rank_db(parts, db, in_memory) == expected)
          << "every " << every << " in memory " << in_memory << "\n"
          << cs::test::dump_sqlite(db).substr(0, 3000) << "\nexpected\n"
          << dump.substr(0, 3000);
    }
  }
}

TEST(SlowRankReduce, WithoutASpillFileTheRowsStayInMemoryWithOneWarning) {
  const fs::path dir = cs::test::temp_dir("slow-rank-no-spill");
  const auto parts = generated_rank_parts(12, true);
  const std::string expected = held_rank_db(parts, dir / "held.db");
  const char* old_tmp = std::getenv("TMPDIR");
  const std::string saved = old_tmp ? old_tmp : "";
  setenv("TMPDIR", (dir / "no-such-directory").c_str(), 1);
  cs::io::Diagnostics diag;
  const bool ok =
      cs::recipes::slow_rank::SlowRank(1).reduce(parts, rank_output(dir / "walked.db"), diag);
  if (old_tmp)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_TRUE(ok);
  EXPECT_FALSE(diag.has_errors());
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("no-such-directory"), std::string::npos)
      << diag.items()[0].what;
  EXPECT_TRUE(cs::test::read_file(dir / "walked.db") == expected);
}

TEST(SlowRankReduce, NothingSlowWritesNothing) {
  const fs::path dir = cs::test::temp_dir("slow-rank-none");
  const auto parts = generated_rank_parts(12, false);
  EXPECT_EQ(held_rank_db(parts, dir / "held.db"), "");
  EXPECT_EQ(walked_rank_db(parts, dir / "walked.db"), "");
  EXPECT_FALSE(fs::exists(dir / "walked.db"));
}

}  // namespace
