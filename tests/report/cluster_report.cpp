// The cluster report.html: sections from real-shaped result tables, escaping, graceful
// degradation when tables or columns are missing, and the size bound for 4,096 ranks.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/cluster_page/cluster_report.h"
#include "report/cluster_page/cluster_sections.h"
#include "report/cluster_page/manifest_digest.h"
#include "report/csv_table.h"
#include "report/html_check.h"
#include "report/synthetic_cluster.h"

using namespace cs;
using namespace cs::report;
using report::test::check_html;
using report::test::kReportData;
using report::test::load_csv_table;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = 0; (p = s.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

struct SmallCluster {
  io::Table manifest = load_csv_table(kReportData + "rank_manifest.csv", "rank_manifest");
  io::Table steps = load_csv_table(kReportData + "step_trace.csv", "step_trace");
  io::Table matrix =
      load_csv_table(kReportData + "communication_matrix.csv", "communication_matrix");
  io::Table summary = load_csv_table(kReportData + "comm_rank_summary.csv", "comm_rank_summary");
  io::Table ops = load_csv_table(kReportData + "operators_topn.csv", "operators_topn");
  io::Table slow_ranks = load_csv_table(kReportData + "slow_ranks.csv", "slow_ranks");
  io::Table slow_links = load_csv_table(kReportData + "slow_links.csv", "slow_links");
  ClusterReportInput input() const {
    ClusterReportInput in;
    in.manifest = &manifest;
    in.step_trace = &steps;
    in.communication_matrix = &matrix;
    in.comm_rank_summary = &summary;
    in.operators_topn = &ops;
    in.slow_ranks = &slow_ranks;
    in.slow_links = &slow_links;
    in.input_path = "/data/job <8 ranks>";
    in.seconds = 0.5;
    in.input_bytes = 9600000;
    in.summary_text = "8 ranks analysed\nslow rank: 5";
    return in;
  }
};

}  // namespace

TEST(ClusterReport, SmallClusterHasEverySection) {
  SmallCluster c;
  ASSERT_EQ(c.steps.rows(), 16u);
  const std::string html = render_cluster_report_html(c.input());
  EXPECT_EQ(check_html(html), "");
  for (const char* id : {"overview", "findings", "steps", "matrix", "wait", "operators"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_EQ(html.find("not computed"), std::string::npos);
  // Nothing external: the script is inline, the data block escapes '<' (the input path has one).
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("\"input\":\"/data/job \\u003c8 ranks>\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // Escaped operator name and input path.
  EXPECT_NE(html.find("LayerNormV3&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Input: /data/job &lt;8 ranks&gt;"), std::string::npos);
  EXPECT_NE(html.find("Add &amp; Mul &quot;fused&quot;"), std::string::npos);
  // Overview: 9 found, 7 ok, 1 partial, 1 skipped with its reason.
  EXPECT_NE(html.find("<div class=\"v\">9</div><div class=\"l\">rank directories found"),
            std::string::npos);
  EXPECT_NE(html.find("<div class=\"v\">7</div><div class=\"l\">analysed fully"),
            std::string::npos);
  EXPECT_NE(html.find("no profiler_info_*.json: rank unknown &lt;check the copy&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("<div class=\"v\">2</div><div class=\"l\">steps"), std::string::npos);
  // Findings in plain words.
  EXPECT_NE(html.find("Rank 5 looks slow (cause: compute), score 7.50."), std::string::npos);
  EXPECT_NE(html.find("Link 2 \u2192 3 (HCCS) is slow: 4.10 GB/s where 18.00 GB/s was expected"),
            std::string::npos);
  EXPECT_NE(html.find("Computing time differs by"), std::string::npos);
  EXPECT_NE(html.find("most on rank 5"), std::string::npos);
  EXPECT_NE(html.find("Judged slow (its peers wait for it): rank 5 (see Findings)"),
            std::string::npos);
  EXPECT_NE(html.find("8 ranks analysed\nslow rank: 5"), std::string::npos);
  // Step chart: one bar per rank (8 groups with tooltips), the slow rank outlined once.
  EXPECT_EQ(count(html, "<title>rank 5\nComputing"), 1u);
  EXPECT_EQ(count(html, "<title>rank "), 16u);      // 8 step bars + 8 wait bars
  EXPECT_EQ(count(html, "class=\"flag\" x="), 2u);  // step chart + wait chart
  // Heatmaps: three groups; the -total keys only; the slow link marked once.
  EXPECT_EQ(count(html, "class=\"chart heat\""), 3u);
  EXPECT_EQ(count(html, "class=\"mk\""), 1u);
  EXPECT_NE(html.find("<title>2 \u2192 3: 4.10 GB/s</title>"), std::string::npos);
  EXPECT_NE(html.find("the \u201c-total\u201d op keys, summed"), std::string::npos);
  // Operators: the high-CV row is flagged red.
  EXPECT_NE(html.find("<tr class=\"flag\"><td class=\"n\">1</td><td class=\"key\">MatMulV3"),
            std::string::npos);
}

// The caller writes and frees the matrix table early and hands the report its digest: the page
// must not change.
TEST(ClusterReport, MatrixDigestDrawsTheSamePage) {
  SmallCluster c;
  const std::string from_table = render_cluster_report_html(c.input());
  ClusterReportInput in = c.input();
  in.matrix_digest = digest_matrix(c.matrix, &c.slow_links);
  in.communication_matrix = nullptr;
  EXPECT_EQ(render_cluster_report_html(in), from_table);
  ASSERT_NE(from_table.find("class=\"mk\""), std::string::npos);  // the slow link is in both
  // Without the slow links, the digest marks none.
  in.matrix_digest = digest_matrix(c.matrix, nullptr);
  in.slow_links = nullptr;
  const std::string unmarked = render_cluster_report_html(in);
  EXPECT_EQ(count(unmarked, "class=\"mk\""), 0u);
  EXPECT_EQ(count(unmarked, "class=\"chart heat\""), 3u);
}

// The digest waits on disk packed (cluster/parked_digest.h): unpacked, it draws the same page;
// damaged or cut bytes throw instead of drawing a wrong one.
TEST(ClusterReport, PackedMatrixDigestDrawsTheSamePage) {
  SmallCluster c;
  ClusterReportInput in = c.input();
  in.matrix_digest = digest_matrix(c.matrix, &c.slow_links);
  in.communication_matrix = nullptr;
  const std::string direct = render_cluster_report_html(in);
  io::ByteWriter w;
  pack_matrix_digest(*in.matrix_digest, w);
  io::ByteReader r(w.data());
  in.matrix_digest = unpack_matrix_digest(r);
  EXPECT_EQ(render_cluster_report_html(in), direct);
  ASSERT_NE(direct.find("class=\"chart heat\""), std::string::npos);

  std::vector<char> cut(w.data().begin(), w.data().end() - 3);
  io::ByteReader rc(cut);
  EXPECT_THROW(unpack_matrix_digest(rc), std::runtime_error);
  std::vector<char> longer = w.data();
  longer.push_back('x');
  io::ByteReader rl(longer);
  EXPECT_THROW(unpack_matrix_digest(rl), std::runtime_error);
  std::vector<char> huge = w.data();
  for (size_t i = 4; i < 12; ++i) huge[i] = '\x7f';  // the group count
  io::ByteReader rh(huge);
  EXPECT_THROW(unpack_matrix_digest(rh), std::runtime_error);
}

// The caller writes and frees the manifest before the analyses and hands the report its digest
// (rank, status, host; path and problems of the rows listed): the page must not change, and the
// digest holds no path of a rank read completely.
TEST(ClusterReport, ManifestDigestDrawsTheSamePage) {
  SmallCluster c;
  const std::string from_table = render_cluster_report_html(c.input());
  const io::Table small = manifest_digest(c.manifest);
  ClusterReportInput in = c.input();
  in.manifest = &small;
  EXPECT_EQ(render_cluster_report_html(in), from_table);
  ASSERT_EQ(small.rows(), c.manifest.rows());
  const io::Column& path = *small.find("path");
  EXPECT_EQ(path.dict.size(), 3u);  // "", the partial rank's and the skipped directory's
  EXPECT_EQ(small.find("host")->dict.size(), 3u);  // node0, node1, node9
  ASSERT_NE(from_table.find("node9_77_20240101_ascend_pt"), std::string::npos);
}

namespace {

// The rows `idx` of `t`, in that order, as a table of their own.
io::Table rows_of(const io::Table& t, const std::vector<size_t>& idx) {
  io::Table out(t.name);
  for (const io::Column& c : t.columns) {
    io::Column& o = out.columns.emplace_back(c);
    o.strings.clear();
    o.ints.clear();
    o.doubles.clear();
    o.codes.clear();
    for (size_t r : idx) {
      if (c.encoded) {
        o.codes.push_back(c.codes[r]);
      } else if (c.type == io::ColumnType::kString) {
        o.strings.push_back(c.strings[r]);
      } else if (c.type == io::ColumnType::kInt) {
        o.ints.push_back(c.ints[r]);
      } else {
        o.doubles.push_back(c.doubles[r]);
      }
    }
  }
  return out;
}

}  // namespace

// The streamed matrix table comes a batch of group tuples at a time, in another order than the
// whole table's: the digest summed chunk by chunk (each group's rows in the same order, groups in
// any order, a group split over chunks) draws the same page.
TEST(ClusterReport, MatrixDigestSummedByChunksDrawsTheSamePage) {
  SmallCluster c;
  const std::string from_table = render_cluster_report_html(c.input());
  const io::Column& group = *c.matrix.find("group");
  std::vector<std::string> order;  // groups by first appearance
  std::map<std::string, std::vector<size_t>> rows;
  for (size_t r = 0; r < c.matrix.rows(); ++r) {
    const std::string g(group.str(r));
    if (rows[g].empty()) order.push_back(g);
    rows[g].push_back(r);
  }
  ASSERT_GE(order.size(), 2u);
  MatrixDigestBuilder b;
  size_t chunks = 0;
  for (auto g = order.rbegin(); g != order.rend(); ++g) {
    const std::vector<size_t>& idx = rows[*g];
    const size_t half = idx.size() / 2;
    b.add(rows_of(c.matrix, {idx.begin(), idx.begin() + static_cast<long>(half)}));
    b.add(rows_of(c.matrix, {idx.begin() + static_cast<long>(half), idx.end()}));
    chunks += 2;
  }
  ClusterReportInput in = c.input();
  in.matrix_digest = b.finish(&c.slow_links);
  in.communication_matrix = nullptr;
  EXPECT_EQ(render_cluster_report_html(in), from_table) << chunks << " chunks";
}

TEST(ClusterReport, MissingTablesSayNotComputed) {
  ClusterReportInput in;
  const std::string html = render_cluster_report_html(in);
  EXPECT_EQ(check_html(html), "");
  for (const char* what : {"Rank manifest", "Step trace", "Communication matrix",
                           "Communication time per rank", "Operator TopN"})
    EXPECT_NE(html.find(std::string(what) + ": not computed in this mode."), std::string::npos)
        << what;
  EXPECT_NE(html.find("No problem found"), std::string::npos);
}

TEST(ClusterReport, MissingColumnsDegrade) {
  // Tables with only some of their columns, and numbers stored as text that is not a number.
  io::Table steps("step_trace");
  steps.add_int("rank").ints = {0, 1};
  steps.add_string("computing_us").strings = {"100", "N/A"};
  io::Table summary("comm_rank_summary");
  summary.add_int("rank").ints = {0, 1};
  summary.add_double("wait_ratio").doubles = {0.5, 0.1};
  io::Table matrix("communication_matrix");
  matrix.add_string("group").strings = {"g", "g"};
  matrix.add_int("src_rank").ints = {0, 1};
  matrix.add_int("dst_rank").ints = {1, 0};
  matrix.add_double("bandwidth_gbps").doubles = {10, 20};
  io::Table ops("operators_topn");
  ops.add_string("key").strings = {"A"};
  ClusterReportInput in;
  in.step_trace = &steps;
  in.comm_rank_summary = &summary;
  in.communication_matrix = &matrix;
  in.operators_topn = &ops;
  const std::string html = render_cluster_report_html(in);
  EXPECT_EQ(check_html(html), "");
  // A missing column reads as zero, written "0" (not "0.0 µs" beside ms ticks).
  EXPECT_NE(html.find("<title>rank 1\nComputing: 0\n"), std::string::npos);
  EXPECT_NE(html.find("<title>0 \u2192 1: 10.00 GB/s</title>"), std::string::npos);
  EXPECT_NE(html.find("every op key, summed"), std::string::npos);
  EXPECT_NE(html.find("<title>rank 0\nWait ratio: 50.0%"), std::string::npos);
  EXPECT_EQ(rank_wait_ratios(&summary).size(), 2u);
}

// The cluster run hands the report comm_rank_summary as a digest: each row's group and rank,
// and each rank's three times summed over its rows (analysis/comm_summary_stream.h,
// CommRankDigest). The page drawn from it is the page drawn from the whole table.
TEST(ClusterReport, RankTotalsDrawTheSamePageAsTheWholeSummary) {
  const auto c = report::test::make_synthetic_cluster(64);
  const io::Table& whole = c->summary;
  io::Table group_ranks("comm_rank_summary"), totals("comm_rank_totals");
  group_ranks.add_string("group").strings = whole.find("group")->strings;
  group_ranks.add_int("rank").ints = whole.find("rank")->ints;
  std::map<int64_t, std::array<double, 3>> sums;
  const char* times[] = {"transit_ms", "wait_ms", "sync_ms"};
  for (size_t r = 0; r < whole.rows(); ++r)
    for (size_t k = 0; k < 3; ++k) {
      const double v = whole.find(times[k])->doubles[r];
      sums[whole.find("rank")->ints[r]][k] += std::isfinite(v) ? v : 0.0;
    }
  io::Column& rank = totals.add_int("rank");
  std::vector<io::Column*> cols;
  for (const char* t : times) cols.push_back(&totals.add_double(t, "ms"));
  for (const auto& [rk, sum] : sums) {
    rank.ints.push_back(rk);
    for (size_t k = 0; k < 3; ++k) cols[k]->doubles.push_back(sum[k]);
  }
  ClusterReportInput digest = c->input();
  digest.comm_rank_summary = &group_ranks;
  digest.comm_rank_totals = &totals;
  const std::string page = render_cluster_report_html(c->input());
  EXPECT_NE(page.find("Wait ratio: "), std::string::npos);
  EXPECT_EQ(render_cluster_report_html(digest), page);
  // Without the totals, the group and rank columns alone have no times to draw.
  digest.comm_rank_totals = nullptr;
  EXPECT_NE(render_cluster_report_html(digest), page);
}

TEST(ClusterReport, LargeClusterIsBucketedAndSmall) {
  const auto c = report::test::make_synthetic_cluster(4096);
  const std::string html = render_cluster_report_html(c->input());
  EXPECT_EQ(check_html(html), "");
  EXPECT_LT(html.size(), 3u << 20) << "report for 4,096 ranks is " << html.size() << " bytes";
  // 128 bucket bars of 32 ranks in each of the two per-rank charts, no per-rank bars.
  EXPECT_EQ(count(html, "<title>ranks "), 256u);
  EXPECT_EQ(count(html, "<title>rank "), 0u);
  EXPECT_NE(html.find("buckets of 32 consecutive ranks"), std::string::npos);
  // The slow rank is in a flagged bucket and listed by itself in the outlier tables.
  const std::string slow = std::to_string(c->slow_rank);
  const long long b0 = c->slow_rank / 32 * 32;
  EXPECT_NE(html.find("<title>ranks " + std::to_string(b0) + "\u2013" + std::to_string(b0 + 31) +
                      "\nComputing (mean)"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"flag\"><td class=\"n\">" + slow + "</td>"), std::string::npos);
  // Heatmaps: tp0 (slow link), then two of the 512-rank DP groups binned to 64 x 64 (bins of 8
  // ranks), then one more 8-rank TP group; the other groups are only listed.
  EXPECT_EQ(count(html, "class=\"chart heat\""), 4u);
  EXPECT_EQ(count(html, ": 512 ranks, 512 links (RDMA)"), 2u);
  size_t first_bins = 0;  // DP group i holds ranks i, i+8, ...: its first bin is "i–(i+56)"
  for (int i = 0; i < 8; ++i)
    first_bins += count(html, "<title>" + std::to_string(i) + "\u2013" + std::to_string(i + 56) +
                                  " \u2192 " + std::to_string(i) + "\u2013");
  EXPECT_EQ(first_bins, 2u);
  EXPECT_EQ(count(html, "class=\"mk\""), 1u);  // tp0 holds the slow link and is drawn first
  EXPECT_NE(html.find("groups drawn"), std::string::npos);
  EXPECT_NE(html.find("more groups: see the communication_matrix table (cluster_analysis.h5"),
            std::string::npos);
}

TEST(ClusterReport, WritesFileAndReportsUnwritablePath) {
  SmallCluster c;
  const auto dir = std::filesystem::temp_directory_path() / "cs_report_test_write";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "report.html").string();
  io::Diagnostics diag;
  ASSERT_TRUE(write_cluster_report_html(c.input(), path, diag));
  EXPECT_TRUE(diag.empty());
  EXPECT_GT(std::filesystem::file_size(path), 10000u);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  io::Diagnostics bad;
  EXPECT_FALSE(write_cluster_report_html(c.input(), "/nonexistent-dir/x/report.html", bad));
  ASSERT_EQ(bad.error_count(), 1u);
  EXPECT_NE(bad.items()[0].to_string().find("/nonexistent-dir/x/report.html"), std::string::npos);
  std::filesystem::remove_all(dir);
}
