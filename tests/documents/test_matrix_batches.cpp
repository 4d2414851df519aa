// The matrix merged a batch of group tuples at a time (matrix_batches.h, merge_cluster_matrix):
// the document is the golden one (msprof-analyze's) and the links are the same, in the same order,
// whatever the batch size and thread count, and whether the ranks' matrix data is held, packed or
// spilled.
#include "msprof_analyze/documents/matrix_batches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "documents/msprof_golden.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "runtime/spill_file.h"

namespace cs::documents {
namespace {

// One line per link: step, op key, op name, ranks, transport, size and time.
void add_rows(const GlobalLinks& links, std::vector<std::string>& out) {
  for (const GlobalLink& l : links)
    out.push_back(std::string(l.step()) + "|" + std::string(l.op_key()) + "|" +
                  std::string(l.op_name()) + "|" + std::to_string(l.src_rank) + "-" +
                  std::to_string(l.dst_rank) + "|" + std::string(l.transport.view()) + "|" +
                  io::py_repr(l.size_mb) + "|" + io::py_repr(l.time_ms));
}

struct Merged {
  std::string text;
  size_t batches = 0;
  std::vector<std::string> rows;  // the links of every batch, in order
  std::string warnings;
  int most_at_once = 0;  // batches handed over at the same time (the callback runs one at a time)
};

Merged merge(const std::vector<load::RankData>& ranks, const CommGroups& groups, size_t batch_links,
             int threads) {
  Merged m;
  const std::string path = test::temp_path("matrix_batches.json");
  io::Diagnostics diag;
  MatrixOptions opts;
  opts.use_metadata_ranks = true;  // as `cluster` merges
  opts.batch_links = batch_links;
  std::atomic<int> in_flight{0};
  merge_cluster_matrix(
      path, ranks, groups, diag,
      [&](GlobalLinks&& b) {
        m.most_at_once = std::max(m.most_at_once, ++in_flight);
        ++m.batches;
        add_rows(b, m.rows);
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // overlap would show
        --in_flight;
      },
      io::JsonStyle::python(), opts, threads);
  m.text = test::slurp(path);
  for (const io::Diagnostic& d : diag.items()) m.warnings += d.what + "\n";
  return m;
}

TEST(MatrixBatches, SameDocumentAndLinksForAnyBatchSizeAndStorage) {
  auto spill = runtime::SpillFile::create();
  for (const char* c : {"tp2pp2", "set_order"}) {  // the cases with a matrix
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const CommGroups groups = build_comm_groups(ranks, {}, diag);
    const Merged whole = merge(ranks, groups, size_t{1} << 40, 1);  // one batch
    ASSERT_EQ(whole.batches, 1u) << c;
    const std::string want = test::expected(c, "cluster_communication_matrix.json");
    EXPECT_EQ(whole.text, want) << c << ": " << test::first_diff(whole.text, want);
    ASSERT_FALSE(whole.rows.empty()) << c;
    auto stored = test::load_case(c);  // every other rank spilled, the rest packed
    for (size_t i = 0; i < stored.size(); ++i)
      i % 2 ? stored[i].matrix.spill(spill) : stored[i].matrix.pack();
    const std::vector<load::RankData>* sets[] = {&ranks, &stored};
    for (const auto* rs : sets) {
      for (size_t batch_links : {size_t{1}, size_t{7}, size_t{0}}) {
        for (int threads : {1, 3}) {
          const Merged got = merge(*rs, groups, batch_links, threads);
          const std::string at = std::string(c) + " batch_links=" + std::to_string(batch_links) +
                                 " threads=" + std::to_string(threads);
          EXPECT_EQ(got.text, want) << at << ": " << test::first_diff(got.text, want);
          EXPECT_EQ(got.rows, whole.rows) << at;
          EXPECT_EQ(got.most_at_once, 1) << at;
          EXPECT_EQ(got.warnings, whole.warnings) << at;
          const MatrixBatches batches(*rs, groups, threads, batch_links);
          EXPECT_EQ(got.batches, batches.size()) << at;
          if (batch_links == 1) {
            EXPECT_EQ(batches.size(), batches.tuples()) << at;
          }
        }
      }
    }
  }
}

// A rank's matrix that cannot be read back is an error, not a rank without links.
TEST(MatrixBatches, DamagedParkedMatrixThrows) {
  auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const CommGroups groups = build_comm_groups(ranks, {}, diag);
  ranks[1].matrix.pack();
  const runtime::PageBuffer& bytes = ranks[1].matrix.packed_bytes();
  const std::vector<char> cut(bytes.data(), bytes.data() + bytes.size() / 2);
  ranks[1].matrix.adopt_packed(runtime::PageBuffer(cut.data(), cut.size()));
  EXPECT_THROW(MatrixBatches(ranks, groups), std::runtime_error);
}

}  // namespace
}  // namespace cs::documents
