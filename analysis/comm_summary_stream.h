#pragma once
// comm_rank_summary and comm_transport_summary (analysis/comm_summary.h: their rows and order)
// built rank by rank and handed out a chunk at a time, so neither table is ever held whole:
//  - each rank's rows come from its own ops alone (`rank_comm_sums`);
//  - `CommSummaryStream::add` takes them in rank order, keeps the group names once each, the
//    transports' highest bandwidths (the nominal-speed choice needs them over every rank) and
//    the rows, packed and bucketed by group, parked in a spill file (runtime/spill_file.h; held
//    in memory when the file cannot be made) a block per group at a time;
//  - `emit` reads the groups back in the tables' order (group by first appearance over the
//    ranks, then rank, then transport) and gives chunks of rows, the same cells as the whole
//    tables', and the report's digest of comm_rank_summary (CommRankDigest: which ranks each
//    group has, 12 bytes a row, and each rank's three times summed over its groups).
//
//   CommSummaryStream s;
//   for (const auto& r : ranks) s.add(rank_comm_sums(r));     // rank order
//   auto rs = sink.open_stream(s.rank_schema(), s.rank_strings());
//   auto ts = sink.open_stream(s.transport_schema(), s.transport_strings());
//   CommRankDigest digest = s.emit([&](io::Table t) { rs->append(std::move(t)); },
//                             [&](io::Table t) { ts->append(std::move(t)); });

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/string_column_size.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "runtime/spill_file.h"

namespace cs::analysis {

// What the report reads of comm_rank_summary (report/cluster_page: group_ranks, rank_wait_ratios),
// a few MB at 16,384 ranks where the table's rows are tens (issue 38, docs/root_memory.md "Done:
// the report's communication digest per rank").
struct CommRankDigest {
  // Each row's group (dictionary-encoded) and rank, in the table's order.
  io::Table group_ranks{"comm_rank_summary"};
  // One row per rank, by rank: transit_ms, wait_ms and sync_ms summed over the rank's rows in the
  // table's order (a value that is not finite counts 0), the sums rank_wait_ratios makes of the
  // whole table, to the bit.
  io::Table rank_totals{"comm_rank_totals"};
};

// One rank's sums: per group (first appearance among its ops) the op count and times, and per
// transport (SDMA skipped, by name) the size and time; plus each transport's highest bandwidth.
struct RankCommSums {
  struct Transport {
    std::string name;
    double size = 0, time = 0;
  };
  struct Group {
    std::string name;
    int64_t ops = 0;
    double elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
    std::vector<Transport> transports;  // by name
  };
  int rank = 0;
  std::vector<Group> groups;
  std::map<std::string, double> max_bandwidth;  // size / time over ops with time > 0
};

// The sums of one rank (none when it has no communication data). `scratch` reads a rank held
// packed or spilled.
RankCommSums rank_comm_sums(const load::RankData& rank, readers::CommunicationFile& scratch);

class CommSummaryStream {
 public:
  // Rows of each chunk `emit` gives; bytes buffered before the groups' rows are parked.
  static constexpr size_t kChunkRows = 16 * 1024;
  static constexpr size_t kParkBytes = 256 * 1024;
  // Parks in a new spill file in $TMPDIR (held in memory when it cannot be made).
  explicit CommSummaryStream(size_t park_bytes = kParkBytes);

  // One rank's sums; ranks in rank order.
  void add(const RankCommSums& sums);

  // The tables' columns (no rows) and their string columns' sizes (for an HDF5 stream).
  static io::Table rank_schema();
  static io::Table transport_schema();
  std::vector<io::StringColumnSize> rank_strings() const;
  std::vector<io::StringColumnSize> transport_strings() const;
  size_t rank_rows() const { return rank_rows_; }
  size_t transport_rows() const { return transport_rows_; }

  // Gives both tables in chunks of at most `chunk_rows` rows, in their order, and returns the
  // report's digest of comm_rank_summary. Once.
  CommRankDigest emit(const std::function<void(io::Table)>& rank_chunk,
                      const std::function<void(io::Table)>& transport_chunk,
                      size_t chunk_rows = kChunkRows);

 private:
  struct Parked {
    runtime::SpillFile::Block block;  // in the spill file, or held_[block.offset]
    bool held = false;
  };
  struct Bucket {
    std::vector<char> pending;  // rows not parked yet
    std::vector<Parked> parked;
    size_t rank_rows = 0, transport_rows = 0;
  };
  uint32_t group_index(const std::string& name);
  uint32_t transport_index(const std::string& name);
  void park();

  size_t park_bytes_;
  std::shared_ptr<runtime::SpillFile> spill_;       // where blocks go; null once it failed
  std::shared_ptr<runtime::SpillFile> spill_file_;  // where the blocks parked so far are
  std::vector<std::vector<char>> held_;  // the parked blocks, when there is no spill file
  std::unordered_map<std::string, uint32_t> group_idx_;
  std::vector<std::string> groups_;
  std::vector<Bucket> buckets_;
  std::unordered_map<std::string, uint32_t> transport_idx_;
  std::vector<std::string> transports_;
  std::map<std::string, double> max_bw_;
  size_t pending_bytes_ = 0;
  size_t rank_rows_ = 0, transport_rows_ = 0;
};

}  // namespace cs::analysis
