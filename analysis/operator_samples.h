#pragma once
// The merged operator table's exact kernel durations (and per-rank totals) parked on disk by key
// (issue 38: the root's memory, docs/root_memory.md). Merging every rank's operator table kept each
// key's samples exactly (up to 2^20 a key, 8 Mi in all: stats/operator_table.h), so the root held
// ranks x kernels doubles until the TopN rows were made. Here the ranks' samples go to a spill file
// as they are merged (stats::OperatorTable::merge_counting: the merged table keeps the counts), a
// block of all keys' pending samples at a time, and a key's samples are read back, in the order
// they came, only when its row is made: one key's samples in memory at a time. The quantiles are
// the same bits as the held merge's. When the file is missing or cannot be written, the samples
// not in it stay in memory (as before) and problem() says why.
//
//   OperatorSamplePark park(spill);
//   merged.merge_counting(rank_table, [&](const std::string& k, const std::vector<double>& v) {
//     park.add(k, v);
//   });
//   park.read("MatMulV3", [&](const double* p, size_t n) { q.give_back(p, n); });

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/spill_file.h"
#include "stats/operator_table.h"

namespace cs::analysis {

class OperatorSamplePark {
 public:
  // Samples held, over every key, before they are parked as one block (1 MiB of doubles).
  static constexpr size_t kParkSamples = size_t{1} << 17;
  // `file`: where the samples go (shared: the loader's spill file); null holds them in memory.
  explicit OperatorSamplePark(std::shared_ptr<runtime::SpillFile> file,
                              size_t park_samples = kParkSamples);

  // Appends `samples` to `key`'s.
  void add(std::string_view key, const std::vector<double>& samples);
  // Gives every sample of `key`, in the order added, to `fn` a block at a time (nothing for a
  // key never added). Throws std::runtime_error when the spill file cannot be read.
  void read(std::string_view key, const std::function<void(const double*, size_t)>& fn) const;
  // Appends one table's per-rank totals of `key` (rank, total), parked with the samples.
  void add_totals(std::string_view key, const stats::RankTotals& totals);
  // Every (rank, total) added for `key`, in the order added. Throws as read().
  void read_totals(std::string_view key, const std::function<void(int, double)>& fn) const;

  // Why the file could not be written (empty: it could, or there was none).
  const std::string& problem() const { return problem_; }
  // Bytes of samples in the file.
  uint64_t parked_bytes() const { return parked_bytes_; }

 private:
  struct Bucket {
    std::vector<runtime::SpillFile::Block> parked;  // in blocks_file_, in order
    std::vector<double> pending;                    // after the parked ones
  };
  using Buckets = std::map<std::string, Bucket, std::less<>>;
  void append(Buckets& to, std::string_view key, const double* p, size_t n);
  void read(const Buckets& from, std::string_view key,
            const std::function<void(const double*, size_t)>& fn) const;
  void park();

  std::shared_ptr<runtime::SpillFile> file_;         // where blocks go; null once it failed
  std::shared_ptr<runtime::SpillFile> blocks_file_;  // where the blocks parked so far are
  size_t park_samples_;
  size_t pending_ = 0;
  uint64_t parked_bytes_ = 0;
  Buckets buckets_;  // the samples
  Buckets totals_;   // the rank totals: rank, total, rank, total, ...
  std::string problem_;
};

}  // namespace cs::analysis
