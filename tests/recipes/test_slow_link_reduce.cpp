// slow_link's reduce walked rank by rank (msprof_analyze/recipes/slow_link/slow_link_reduce.h)
// writes the bytes of the reduce over the ranks' concatenated rows (the reduce slow_link had
// before, kept here as the reference), on generated rows covering the recipe's edge cases:
// send/receive ops (transmit time 0, no ranks), a NULL data size (the column becomes REAL and
// those rows leave the groups), a NULL op type, a rank lacking a column, a REAL data size equal
// to an int one (one group), ties for the longest and shortest, an unused rank, groups kept and
// groups not, --top_num cutting SlowLinkSum; with every rank held, every rank parked on disk and
// half of each, and SlowLinkOps written in one piece or in many.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/slow_link/slow_link.h"
#include "msprof_analyze/recipes/slow_link/slow_link_reduce.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace frame = cs::frame;
using cs::recipes::RankPartial;
using cs::recipes::RecipeOutput;

namespace {

bool is_point_to_point(const frame::Cell& op) {
  const std::string& s = op.str();
  return s.find("send") != std::string::npos || s.find("receive") != std::string::npos;
}

std::string key_text(const frame::Cell& c) {
  if (c.kind == frame::Cell::Kind::kText) return c.str();
  if (c.kind == frame::Cell::Kind::kInt) return std::to_string(c.i());
  return frame::csv_cell(c, frame::Dtype::kFloat64);
}

// The reference: slow_link's reduce over the concatenation of every rank's rows.
bool held_link_reduce(const std::vector<const frame::Frame*>& frames, const RecipeOutput& out,
                      cs::io::Diagnostics& diag) {
  frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  const size_t n = all.rows();
  auto& transmit = all.add("transmitTime");
  auto& related = all.add("relatedRanks");
  transmit.cells.assign(n, frame::Cell::integer(0));
  related.cells.assign(n, frame::Cell::integer(0));
  const auto& group = frame::find_column(all, "groupName")->cells;
  const auto& op = frame::find_column(all, "opName")->cells;
  const auto& time = frame::find_column(all, "communicationTime")->cells;
  std::unordered_map<std::string, std::vector<size_t>> instances;
  for (size_t r = 0; r < n; ++r)
    if (!is_point_to_point(op[r]))
      instances[frame::cell_key(group[r]) + '\x1f' + frame::cell_key(op[r])].push_back(r);
  for (const auto& [_, rows] : instances) {
    int64_t shortest = time[rows.front()].i();
    for (size_t r : rows) shortest = std::min(shortest, time[r].i());
    for (size_t r : rows) {
      transmit.cells[r] = frame::Cell::integer(shortest);
      related.cells[r] = frame::Cell::integer(static_cast<int64_t>(rows.size()));
    }
  }
  const std::vector<std::string> keys = {"opType", "dataSize", "relatedRanks"};
  std::vector<size_t> kept;
  for (const auto& g : frame::group_rows(all, keys, true)) {
    std::vector<double> t;
    for (size_t r : g) t.push_back(transmit.cells[r].num());
    if (cs::recipes::slow_link::has_z_score_outlier(t)) kept.insert(kept.end(), g.begin(), g.end());
  }
  if (kept.empty()) return true;
  frame::Frame ops = frame::take(all, kept);
  bool any_null = false;
  for (const frame::Cell& c : frame::find_column(all, "dataSize")->cells)
    any_null = any_null || c.is_null();
  if (any_null)
    for (frame::Cell& c : frame::find_column(ops, "dataSize")->cells)
      c = frame::Cell::real(c.num());
  frame::Frame stats = frame::describe_duration(ops, keys, "transmitTime");
  const auto& t = frame::find_column(ops, "transmitTime")->cells;
  const auto& rank = frame::find_column(ops, "rankId")->cells;
  frame::Frame sum;
  auto& name = sum.add("opTypeRelatedRanksDataSize");
  for (size_t c = 3; c < stats.columns.size(); ++c) sum.columns.push_back(stats.columns[c]);
  auto& ratio = sum.add("offsetRatio");
  auto& max_rank = sum.add("maxRank");
  auto& min_rank = sum.add("minRank");
  const auto groups = frame::group_rows(ops, keys, true);
  for (size_t g = 0; g < groups.size(); ++g) {
    size_t at_max = groups[g].front(), at_min = at_max;
    int64_t total = 0;
    for (size_t r : groups[g]) {
      if (t[r].i() > t[at_max].i()) at_max = r;
      if (t[r].i() < t[at_min].i()) at_min = r;
      total += t[r].i();
    }
    name.push_back(frame::Cell::text(key_text(stats.columns[0].cells[g]) +
                                     key_text(stats.columns[2].cells[g]) + "_" +
                                     key_text(stats.columns[1].cells[g])));
    frame::find_column(sum, "MinNs")->cells[g] = t[at_min];
    frame::find_column(sum, "MaxNs")->cells[g] = t[at_max];
    frame::find_column(sum, "SumNs")->cells[g] = frame::Cell::integer(total);
    const double mean = frame::find_column(sum, "MeanNs")->cells[g].num();
    const double sd = frame::find_column(sum, "StdNs")->cells[g].num();
    const double far = std::fmax(std::fabs(static_cast<double>(t[at_max].i()) - mean),
                                 std::fabs(static_cast<double>(t[at_min].i()) - mean));
    ratio.push_back(frame::Cell::real(far / sd));
    max_rank.push_back(rank[at_max]);
    min_rank.push_back(rank[at_min]);
  }
  std::vector<size_t> valid, order;
  for (size_t r = 0; r < sum.rows(); ++r)
    if (!std::isnan(ratio.cells[r].num())) valid.push_back(r);
  for (size_t i : frame::pandas_sort_order(
           valid.size(),
           [&](size_t a, size_t b) {
             return ratio.cells[valid[a]].num() < ratio.cells[valid[b]].num();
           },
           false))
    order.push_back(valid[i]);
  for (size_t r = 0; r < sum.rows(); ++r)
    if (std::isnan(ratio.cells[r].num())) order.push_back(r);
  const size_t top = static_cast<size_t>(out.top_num > 0 ? out.top_num : 15);
  if (order.size() > top) order.resize(top);
  return cs::recipes::dump_recipe_frame(frame::take(sum, order), out, "SlowLink", "", "SlowLinkSum",
                                        diag) &&
         cs::recipes::dump_recipe_frame(ops, out, "SlowLink", "", "SlowLinkOps", diag);
}

// `ranks` ranks' rows as slow_link's map gives them. Four groups of 4-8 ranks run 40 collectives
// each (a few of them slow on every rank: the group's outlier), plus send/receive pairs; the
// edge cases of the file comment are placed on fixed ranks.
std::vector<RankPartial> generated_link_parts(int ranks, bool with_null_size) {
  std::mt19937 rng(38);
  std::vector<RankPartial> parts(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    parts[r].rank = r;
    parts[r].used = r != 3;  // rank 3 was skipped by its map
    frame::Frame& f = parts[r].frames["rows"];
    for (const char* c :
         {"rankId", "groupName", "communicationTime", "opName", "opType", "dataType", "dataSize"})
      if (!(r == 5 && std::string(c) == "dataType")) f.add(c);  // rank 5 lacks dataType
  }
  auto row = [&](int r, const std::string& group, int64_t time, const std::string& op,
                 frame::Cell type, frame::Cell size) {
    frame::Frame& f = parts[r].frames["rows"];
    frame::find_column(f, "rankId")->push_back(frame::Cell::integer(r));
    frame::find_column(f, "groupName")->push_back(frame::Cell::text(group));
    frame::find_column(f, "communicationTime")->push_back(frame::Cell::integer(time));
    frame::find_column(f, "opName")->push_back(frame::Cell::text(op));
    frame::find_column(f, "opType")->push_back(type);
    if (auto* c = frame::find_column(f, "dataType")) c->push_back(frame::Cell::text("FP16"));
    frame::find_column(f, "dataSize")->push_back(size);
  };
  const int kGroups = 4;
  for (int g = 0; g < kGroups; ++g) {
    const int size = 4 + 2 * (g % 3);
    const std::string group = "group" + std::to_string(g);
    for (int i = 0; i < 40; ++i) {
      const std::string type = i % 2 ? "hcom_allReduce_" : "hcom_allGather_";
      const int64_t base = 1000 + static_cast<int64_t>(rng() % 50);
      const bool slow = g != 3 && i % 17 == 5;  // group3 has no outlier
      for (int k = 0; k < size; ++k) {
        const int r = (g * 3 + k) % ranks;
        const int64_t t = slow ? base * 40 + k : (k == 1 ? base : base + 1 + rng() % 30);
        frame::Cell bytes = frame::Cell::integer(i % 3 ? 1024 : 4096);
        if (r == 7 && i % 3) bytes = frame::Cell::real(1024.0);  // the same group as 1024
        if (with_null_size && r == 2 && i == 8) bytes = frame::Cell::null();
        frame::Cell op_type = frame::Cell::text(type);
        if (r == 4 && i == 9) op_type = frame::Cell::null();
        row(r, group, t, type + std::to_string(i), op_type, bytes);
      }
    }
    for (int i = 0; i < 6; ++i) {  // a send/receive pair
      const int a = g % ranks, b = (g + 1) % ranks;
      row(a, group, 500 + i, "hcom_send__" + std::to_string(i), frame::Cell::text("hcom_send_"),
          frame::Cell::integer(64));
      row(b, group, 600 + i, "hcom_receive__" + std::to_string(i),
          frame::Cell::text("hcom_receive_"), frame::Cell::integer(64));
    }
  }
  return parts;
}

RecipeOutput link_output(const fs::path& db, int top_num) {
  RecipeOutput out;
  out.cluster_output_dir = db.parent_path().string();
  out.db_file = db.string();
  out.top_num = top_num;
  return out;
}

std::string held_link_db(const std::vector<RankPartial>& parts, const fs::path& db, int top_num) {
  cs::io::Diagnostics diag;
  std::vector<const frame::Frame*> frames;
  for (const auto& p : parts)
    if (p.used) frames.push_back(&p.frames.at("rows"));
  EXPECT_TRUE(held_link_reduce(frames, link_output(db, top_num), diag));
  EXPECT_FALSE(diag.has_errors());
  return cs::test::read_file(db);
}

std::string walked_link_db(const std::vector<RankPartial>& parts, const fs::path& db, int top_num,
                           size_t batch) {
  cs::io::Diagnostics diag;
  EXPECT_TRUE(
      cs::recipes::slow_link::reduce_slow_links(parts, link_output(db, top_num), diag, batch));
  EXPECT_FALSE(diag.has_errors());
  return cs::test::read_file(db);
}

TEST(SlowLinkReduce, RankByRankWritesTheConcatenationsBytes) {
  const fs::path dir = cs::test::temp_dir("slow-link-reduce");
  const cs::recipes::slow_link::SlowLink recipe;
  for (bool null_size : {false, true}) {
    for (int top_num : {-1, 2}) {
      const auto held = generated_link_parts(12, null_size);
      const std::string tag = std::to_string(null_size) + "-" + std::to_string(top_num);
      const fs::path ref = dir / ("held-" + tag + ".db");
      const std::string expected = held_link_db(held, ref, top_num);
      // Both tables, SlowLinkSum cut at top_num, the outlier-free group3 and the NULL keys out.
      const std::string dump = cs::test::dump_sqlite(ref);
      ASSERT_NE(dump.find("SlowLinkOps"), std::string::npos) << dump.substr(0, 2000);
      ASSERT_NE(dump.find("SlowLinkSum"), std::string::npos);
      EXPECT_EQ(dump.find("group3"), std::string::npos);
      EXPECT_EQ(dump.find("1024.0") != std::string::npos, null_size);
      for (int every : {0, 1, 2}) {  // none parked, every rank, every other rank
        for (size_t batch : {size_t{1}, cs::recipes::slow_link::kOpsBatchRows}) {
          auto parts = held;
          cs::recipes::FramePark store({&recipe});
          if (every > 0)
            for (auto& p : parts)
              if (p.rank % every == 0) store.park(0, p);
          if (every > 0) {
            ASSERT_FALSE(parts[0].parked.empty());
          }
          const fs::path db = dir / ("walked-" + tag + "-" + std::to_string(every) + "-" +
                                     std::to_string(batch) + ".db");
          EXPECT_TRUE(walked_link_db(parts, db, top_num, batch) == expected)
              << tag << " every " << every << " batch " << batch << "\n"
              << cs::test::dump_sqlite(db).substr(0, 3000) << "\nexpected\n"
              << dump.substr(0, 3000);
        }
      }
    }
  }
}

TEST(SlowLinkReduce, NothingSlowWritesNothing) {
  // Every collective as fast as the others: no group kept, no database (as the held reduce).
  std::vector<RankPartial> parts(2);
  for (int r = 0; r < 2; ++r) {
    parts[r].rank = r;
    parts[r].used = true;
    frame::Frame& f = parts[r].frames["rows"];
    for (const char* c :
         {"rankId", "groupName", "communicationTime", "opName", "opType", "dataType", "dataSize"})
      f.add(c);
    for (int i = 0; i < 20; ++i) {
      frame::find_column(f, "rankId")->push_back(frame::Cell::integer(r));
      frame::find_column(f, "groupName")->push_back(frame::Cell::text("g"));
      frame::find_column(f, "communicationTime")->push_back(frame::Cell::integer(100));
      frame::find_column(f, "opName")->push_back(frame::Cell::text("op" + std::to_string(i)));
      frame::find_column(f, "opType")->push_back(frame::Cell::text("hcom_allReduce_"));
      frame::find_column(f, "dataType")->push_back(frame::Cell::text("FP16"));
      frame::find_column(f, "dataSize")->push_back(frame::Cell::integer(8));
    }
  }
  const fs::path db = cs::test::temp_dir("slow-link-none") / "cluster_analysis.db";
  cs::io::Diagnostics diag;
  EXPECT_TRUE(cs::recipes::slow_link::reduce_slow_links(parts, link_output(db, -1), diag));
  EXPECT_FALSE(fs::exists(db));
}

}  // namespace
