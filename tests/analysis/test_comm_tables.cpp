#include "analysis/comm_tables.h"

#include "analysis/comm_matrix_table.h"
#include "analysis/comm_op_tables.h"
#include "analysis/link_observations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>

#include "documents/msprof_golden.h"
#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_parser.h"
#include "msprof_analyze/documents/cluster_communication.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "msprof_analyze/documents/matrix_batches.h"
#include "runtime/spill_file.h"

namespace cs::analysis {
namespace {

TEST(CommTables, NaturalOrder) {
  EXPECT_TRUE(analysis::natural_less("step2", "step10"));
  EXPECT_FALSE(analysis::natural_less("step10", "step2"));
  EXPECT_TRUE(analysis::natural_less("a", "b"));
  EXPECT_TRUE(analysis::natural_less("", "a"));
  EXPECT_FALSE(analysis::natural_less("x1", "x1"));
}

TEST(CommTables, NaturalKeysCompareAsNaturalLess) {
  // Random texts of digits (leading zeros too), the bytes just below and above the digits, other
  // ASCII and a high byte: every pair orders the same by keys as by natural_less.
  std::mt19937 rng(7);
  const std::string alphabet = std::string("0019/:a_z") + '\xff';
  std::vector<std::string> texts;
  for (int i = 0; i < 600; ++i) {
    std::string s;
    for (int n = static_cast<int>(rng() % 9); n > 0; --n) s += alphabet[rng() % alphabet.size()];
    texts.push_back(s);
  }
  for (const auto& a : texts)
    for (const auto& b : texts)
      ASSERT_EQ(analysis::natural_less(a, b), analysis::natural_key(a) < analysis::natural_key(b))
          << a << " vs " << b;
  EXPECT_LT(analysis::natural_key("hcom_allReduce__2_0_1"),
            analysis::natural_key("hcom_allReduce__10_0_1"));
  EXPECT_LT(analysis::natural_key("x1"), analysis::natural_key("x01"));  // "01" after "1"
}

// The values of a string column, plain or dictionary-encoded.
std::vector<std::string> texts(const io::Column* c) {
  std::vector<std::string> out;
  for (size_t i = 0; c && i < c->size(); ++i) out.emplace_back(c->str(i));
  return out;
}

TEST(CommTables, OpsTableRowsAndValues) {
  const auto ranks = test::load_case("set_order");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const io::Table t = analysis::communication_ops_table(ranks, groups);
  t.validate();
  // Every op report of every rank, once.
  size_t reports = 0;
  readers::CommunicationFile unpacked;
  for (const auto& rd : ranks)
    for (const auto& st : rd.communication.read(unpacked).steps)
      reports += st.collective.size() + st.p2p.size();
  ASSERT_EQ(t.rows(), reports);
  // The interface's columns, then the op's type and start; the group tuple orders the rows but
  // is not a column (it would grow with the group's size on every row).
  std::vector<std::string> names;
  for (const auto& c : t.columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"step", "group", "op", "rank", "elapse_ms",
                                             "transit_ms", "wait_ms", "sync_ms", "idle_ms",
                                             "wait_ratio", "sync_ratio", "type", "start_us"}));
  // Group tuple first (each tuple's rows together, in the document's order), then step
  // (natural: step3 before step10), group, op (natural), rank.
  const auto step = texts(t.find("step"));
  const auto& rank = t.find("rank")->ints;
  const auto group = texts(t.find("group"));
  const auto op = texts(t.find("op"));
  const auto type = texts(t.find("type"));
  std::vector<std::string> tuple;
  for (size_t i = 0; i < t.rows(); ++i) {
    const documents::CommGroup* g = groups.find(type[i], group[i]);
    tuple.push_back(g ? g->tuple_key() : "()");
  }
  std::set<std::string> done;
  bool step3_before_step10 = false;
  for (size_t i = 1; i < t.rows(); ++i) {
    if (tuple[i] != tuple[i - 1]) {
      EXPECT_TRUE(done.insert(tuple[i - 1]).second) << tuple[i - 1] << " in two runs";
      continue;
    }
    EXPECT_FALSE(natural_less(step[i], step[i - 1])) << i;
    step3_before_step10 = step3_before_step10 || (step[i - 1] == "step3" && step[i] == "step10");
    if (step[i] == step[i - 1] && group[i] == group[i - 1] && op[i] == op[i - 1]) {
      EXPECT_LT(rank[i - 1], rank[i]);
    }
  }
  EXPECT_FALSE(done.count(tuple.back()));
  EXPECT_TRUE(step3_before_step10);
  EXPECT_EQ(t.find("elapse_ms")->unit, "ms");
  for (double v : t.find("wait_ratio")->doubles) EXPECT_TRUE(v >= 0 && v <= 1);
  EXPECT_NE(std::find(tuple.begin(), tuple.end(), "(15, 7)"), tuple.end());
}

TEST(CommTables, BandwidthTableEqualsTotals) {
  const auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const io::Table t = analysis::communication_bandwidth_table(ranks, groups);
  t.validate();
  ASSERT_GT(t.rows(), 0u);
  std::vector<std::string> names;  // the interface's columns, no group tuple
  for (const auto& c : t.columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"step", "group", "rank", "transport", "size_mb",
                                             "time_ms", "bandwidth_gbps"}));
  const auto& size = t.find("size_mb")->doubles;
  const auto& time = t.find("time_ms")->doubles;
  const auto& bw = t.find("bandwidth_gbps")->doubles;
  for (size_t i = 0; i < t.rows(); ++i)
    EXPECT_DOUBLE_EQ(bw[i], time[i] < 1e-15 ? 0.0 : size[i] / time[i]);
  // Sum of HCCS sizes of rank 0, step1, its tp group, computed straight from the inputs.
  double want = 0;
  readers::CommunicationFile unpacked;
  const auto& st = ranks[0].communication.read(unpacked).steps[0];
  std::string tp_group;
  for (const auto& op : st.collective) {
    if (op.name == "Total Op Info") continue;
    tp_group = std::string(documents::py_group_of(op.name));
    for (const auto& tr : op.transports)
      if (tr.name == "HCCS") want += tr.get(readers::kTrSizeMb);
  }
  bool found = false;
  const auto steps = texts(t.find("step")), groups_col = texts(t.find("group")),
             transports = texts(t.find("transport"));
  for (size_t i = 0; i < t.rows(); ++i)
    if (steps[i] == "step1" && t.find("rank")->ints[i] == 0 && groups_col[i] == tp_group &&
        transports[i] == "HCCS") {
      EXPECT_DOUBLE_EQ(size[i], want);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(CommTables, MatrixAndStepTraceTables) {
  const auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const auto links = documents::merge_matrix_links(ranks, groups, diag);
  const io::Table m = analysis::communication_matrix_table(links);
  m.validate();
  EXPECT_EQ(m.rows(), links.size());
  EXPECT_EQ(m.find("bandwidth_gbps")->unit, "GB/s");
  const io::Table s = analysis::step_trace_table(ranks);
  s.validate();
  EXPECT_EQ(s.rows(), 8u);  // 4 ranks x 2 steps
  EXPECT_EQ(texts(s.find("step"))[0], "1");
  EXPECT_EQ(s.find("rank")->ints[1], 1);  // sorted by step, then rank
  for (double v : s.find("preparing_us")->doubles) EXPECT_FALSE(std::isnan(v));
  const io::Table s2 =
      analysis::step_trace_table(test::load_case("set_order"));  // no Preparing column
  for (double v : s2.find("preparing_us")->doubles) EXPECT_TRUE(std::isnan(v));
}

// Two tables equal column by column, cell by cell (string cells by value).
void expect_same_table(const io::Table& one, const io::Table& two, const std::string& what) {
  ASSERT_EQ(one.rows(), two.rows()) << what;
  ASSERT_EQ(one.columns.size(), two.columns.size()) << what;
  for (size_t c = 0; c < one.columns.size(); ++c) {
    const io::Column& a = one.columns[c];
    const io::Column& b = two.columns[c];
    EXPECT_EQ(a.name, b.name) << what;
    EXPECT_EQ(a.unit, b.unit) << what;
    for (size_t i = 0; i < one.rows(); ++i) {
      if (!a.ints.empty()) {
        ASSERT_EQ(a.ints[i], b.ints[i]) << what << ": " << a.name << " row " << i;
      }
      if (!a.doubles.empty()) {
        ASSERT_EQ(a.doubles[i], b.doubles[i]) << what << ": " << a.name << " row " << i;
      }
      if (a.encoded || !a.strings.empty()) {
        ASSERT_EQ(a.str(i), b.str(i)) << what << ": " << a.name << " row " << i;
      }
    }
  }
}

TEST(CommTables, MatrixTableIsTheSameOnTwoThreadsAndInBatches) {
  // A generated 32-rank job: ~10k links, above the size where the table is built on two threads.
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(CS_BUILD_DIR) / "comm_tables_test";
  fs::remove_all(dir);
  generator::GeneratorOptions o;
  o.ranks = 32;
  o.tp = 8;
  o.pp = 2;
  o.steps = 2;
  o.trace_view = 0;
  io::Diagnostics diag;
  ASSERT_TRUE(generator::generate_cluster(dir.string(), o, diag));
  std::vector<load::RankData> ranks;
  for (const auto& e : load::discover_ranks(dir.string()).ranks)
    ranks.push_back(load::parse_rank(e, load::ParseOptions{}));
  fs::remove_all(dir);
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const auto links = documents::merge_matrix_links(ranks, groups, diag);
  ASSERT_GE(links.size(), 4096u);
  const io::Table one = analysis::communication_matrix_table(links, 1);
  const io::Table two = analysis::communication_matrix_table(links, 2);
  two.validate();
  expect_same_table(one, two, "two threads");
  // Streamed a batch of group tuples at a time from the merge (the links of a batch let go once
  // its rows are taken; `cluster` streams it so): rows by tuple, each tuple's sorted, the same
  // rows in the same order for any batch size; sorted step first they are the whole table cell
  // for cell; the same slow-link observations; every string within the widths of the first pass.
  const std::vector<LinkObservation> whole_obs = link_observations(links);
  const io::Table by_tuple = communication_matrix_rows(links);  // one batch of every tuple
  for (size_t batch_links : {size_t{1}, size_t{500}, size_t{0}}) {
    documents::MatrixOptions mopts;
    mopts.batch_links = batch_links;
    const documents::MatrixBatches mb(ranks, groups, 2, batch_links);
    const CommMatrixShape shape = comm_matrix_shape(mb.widths());
    io::Table table = shape.schema;
    LinkObservationSet obs;
    size_t batches = 0;
    io::Diagnostics d;
    documents::merge_cluster_matrix(
        "", mb, groups, d,
        [&](documents::GlobalLinks&& b) {
          // Built on three threads, a run of the batch's tuples each: the same rows in order.
          const io::Table rows = communication_matrix_rows(b);
          io::Table parts = shape.schema;
          for (const io::Table& p : communication_matrix_row_parts(b, 3))
            append_table_rows(parts, p);
          expect_same_table(rows, parts, "parts of batch " + std::to_string(batches));
          append_table_rows(table, rows);
          obs.add(b);
          ++batches;
        },
        io::JsonStyle::python(), mopts, 2);
    const std::string at = "batch_links=" + std::to_string(batch_links);
    if (batch_links == 1) {
      EXPECT_GT(batches, 10u) << at;
    }
    table.validate();
    expect_same_table(by_tuple, table, at);
    ASSERT_EQ(shape.strings.size(), 5u);
    size_t k = 0;
    for (const io::Column& c : table.columns) {
      if (c.type != io::ColumnType::kString) continue;
      size_t longest = 0;
      for (size_t r = 0; r < c.size(); ++r) longest = std::max(longest, c.str(r).size());
      EXPECT_LE(longest, shape.strings[k].longest) << at << " " << c.name;
      EXPECT_GT(shape.strings[k].mean, 0) << at << " " << c.name;
      ++k;
    }
    sort_table_rows(table, {{"step", true}, {"group"}, {"op", true}, {"src_rank"}, {"dst_rank"}});
    expect_same_table(one, table, at + ", sorted step first");
    // The compact set leaves out what find_slow_links() skips for its numbers (0 MB links).
    std::vector<LinkObservation> usable_obs;
    for (const LinkObservation& y : whole_obs)
      if (y.size_mb > 0 && y.time_ms > 0) usable_obs.push_back(y);
    const std::vector<LinkObservation> set_obs = obs.to_vector();
    ASSERT_EQ(set_obs.size(), usable_obs.size()) << at;
    for (size_t i = 0; i < usable_obs.size(); ++i) {
      const LinkObservation &x = set_obs[i], &y = usable_obs[i];
      ASSERT_EQ(x.op_key, y.op_key) << at;
      ASSERT_EQ(x.src_rank, y.src_rank) << at;
      ASSERT_EQ(x.dst_rank, y.dst_rank) << at;
      ASSERT_EQ(x.transport, y.transport) << at;
      ASSERT_EQ(x.size_mb, y.size_mb) << at;
      ASSERT_EQ(x.time_ms, y.time_ms) << at;
    }
    int unjudged_v = -1, unjudged_s = -2;
    const auto fv = find_slow_links(whole_obs, {}, &unjudged_v);
    const auto fs = find_slow_links(obs, {}, &unjudged_s);
    EXPECT_EQ(unjudged_s, unjudged_v) << at;
    ASSERT_EQ(fs.size(), fv.size()) << at;
    for (size_t i = 0; i < fv.size(); ++i) EXPECT_EQ(fs[i].evidence, fv[i].evidence) << at;
  }
}

}  // namespace
}  // namespace cs::analysis

namespace cs::analysis {
namespace {

bool same_column(const io::Column& a, const io::Column& b) {
  if (a.name != b.name || a.unit != b.unit || a.type != b.type || a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.type == io::ColumnType::kString && a.str(i) != b.str(i)) return false;
    if (a.type == io::ColumnType::kInt && a.ints[i] != b.ints[i]) return false;
    if (a.type == io::ColumnType::kDouble &&
        std::memcmp(&a.doubles[i], &b.doubles[i], sizeof(double)) != 0)
      return false;
  }
  return true;
}

// The two per-op tables built a batch of group tuples at a time (one tuple a batch, from ranks
// packed or spilled, each batch on 3 threads) equal the tables of one batch of every tuple built
// on one, cell for cell; the string widths known before the first batch are those of the values.
TEST(CommTables, SameTablesForAnyBatchSize) {
  auto spill = runtime::SpillFile::create();
  for (const char* c : test::kCases) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
    auto build = [&](const std::vector<load::RankData>& rs, size_t batch_ops, int threads) {
      const documents::CommBatches batches(rs, groups, threads, batch_ops);
      CommOpTableShapes tables = comm_op_table_shapes(batches.widths());
      for (size_t b = 0; b < batches.size(); ++b) {
        // On several threads, a run of the batch's tuples each (threads > 1), or whole.
        const documents::CommBatch batch = batches.load(b, threads);
        std::vector<CommOpChunk> chunks;
        if (threads > 1) {
          chunks = comm_op_chunks(batch.index, threads);
        } else {
          chunks.push_back(comm_op_chunk(batch.index));
        }
        for (const CommOpChunk& c : chunks) {
          append_table_rows(tables.ops, c.ops);
          append_table_rows(tables.bandwidth, c.bandwidth);
        }
      }
      // The widths known up front are the longest values.
      size_t k = 0;
      for (const io::Column& col : tables.ops.columns) {
        if (col.type != io::ColumnType::kString) continue;
        size_t longest = 0;
        for (size_t i = 0; i < col.size(); ++i) longest = std::max(longest, col.str(i).size());
        EXPECT_EQ(tables.ops_strings.at(k++).longest, longest) << col.name;
      }
      return std::make_pair(std::move(tables.ops), std::move(tables.bandwidth));
    };
    const auto whole = build(ranks, SIZE_MAX, 1);
    ASSERT_GT(whole.first.rows(), 0u) << c;
    auto stored = test::load_case(c);
    for (size_t i = 0; i < stored.size(); ++i)
      i % 2 ? stored[i].communication.spill(spill) : stored[i].communication.pack();
    const auto small = build(stored, 1, 3);
    for (const auto& [a, b] : {std::make_pair(&whole.first, &small.first),
                               std::make_pair(&whole.second, &small.second)}) {
      ASSERT_EQ(a->columns.size(), b->columns.size());
      for (size_t k = 0; k < a->columns.size(); ++k)
        EXPECT_TRUE(same_column(a->columns[k], b->columns[k])) << c << " " << a->columns[k].name;
    }
  }
}

// Rows sorted by the given columns in turn, natural or byte order, then by position.
TEST(CommTables, SortTableRows) {
  io::Table t("t");
  io::DictionaryEncoder step(t.add_encoded_string("step"));
  auto& rank = t.add_int("rank");
  auto& v = t.add_double("v");
  const char* steps[] = {"step10", "step2", "step10", "step2", "step2"};
  const int64_t ranks[] = {1, 3, 0, 3, 1};
  for (int i = 0; i < 5; ++i) {
    step.push(steps[i]);
    rank.ints.push_back(ranks[i]);
    v.doubles.push_back(i);
  }
  io::Table natural = t;
  sort_table_rows(natural, {{"step", true}, {"rank"}});
  EXPECT_EQ(natural.find("v")->doubles, (std::vector<double>{4, 1, 3, 2, 0}));
  sort_table_rows(t, {{"step"}, {"rank"}});  // bytes: "step10" < "step2"
  EXPECT_EQ(t.find("v")->doubles, (std::vector<double>{2, 0, 4, 1, 3}));
  EXPECT_THROW(sort_table_rows(t, {{"v"}}), std::logic_error);
}

}  // namespace
}  // namespace cs::analysis
