#pragma once
// Adapter: the merged global-rank links of cluster_communication_matrix.json (GlobalLink) as the
// slow-link analysis's LinkObservations. The links find_slow_links() ignores are left out here
// already (derived keys -top1/-middle/-bottomN and Total Op Info, LOCAL and self links): at
// 1,024 ranks they are most of the ~700k links, and the observations are held next to them.
//
//   auto links = merge_matrix_links(ranks, groups, diag);
//   auto slow = find_slow_links(link_observations(links));

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/slow_link.h"
#include "io/string_pool.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "runtime/spill_file.h"

namespace cs::analysis {

// The observations of `links`, viewing their op keys (keep `links` while they are used).
std::vector<LinkObservation> link_observations(const documents::GlobalLinks& links);

// The observations of merged links that come a batch at a time (merge_cluster_matrix) and are
// let go after each, held compactly: 32 bytes each (op key and transport as ids into the set's
// own string pools), in fixed-size chunks (no growth slack), each full chunk parked in a spill
// file when one is given (park_in: then only the chunk being filled is held; about 1.5 KB a rank
// at 16,384 ranks otherwise). Besides what link_observations()
// leaves out, add() leaves out the observations find_slow_links() would skip for their numbers
// (size at most min_size_mb, time not positive, either not finite, or a bandwidth that is not).
//
//   LinkObservationSet obs;  // merge_cluster_matrix(..., [&](GlobalLinks&& b) { obs.add(b); })
//   auto slow = find_slow_links(obs);
class LinkObservationSet {
 public:
  // `min_size_mb`: the smallest SlowLinkOptions::min_size_mb the set will be judged with.
  explicit LinkObservationSet(double min_size_mb = 0) : min_size_mb_(min_size_mb) {}

  // Full chunks go to `file` from now on (read back by for_each); when it cannot be written,
  // they stay in memory and park_problem() says why.
  void park_in(std::shared_ptr<runtime::SpillFile> file) { file_ = std::move(file); }
  // Why chunks could not be parked ("" when they could, or when none was to be).
  const std::string& park_problem() const { return problem_; }
  // Chunks parked in the spill file.
  size_t parked_chunks() const { return parked_; }

  // Appends the observations of one batch's links.
  void add(const documents::GlobalLinks& batch);
  // Appends observations (their op keys and transports copied; the same ones left out).
  void add(const std::vector<LinkObservation>& obs);

  size_t size() const { return size_; }
  double min_size_mb() const { return min_size_mb_; }
  // The op keys, by the ids for_each() passes.
  size_t op_count() const { return keys_.size(); }
  std::string_view op_key(uint32_t op) const { return keys_.str(op); }

  // Calls f(op id, transport, src_rank, dst_rank, size_mb, time_ms) for each observation, in
  // the order added. Throws std::runtime_error when a parked chunk cannot be read back.
  template <class F>
  void for_each(F&& f) const {
    size_t left = size_;
    std::vector<char> bytes;  // a parked chunk read back
    std::unique_ptr<Record[]> scratch;
    for (const Chunk& c : chunks_) {
      const size_t n = left < kChunk ? left : kChunk;
      const Record* records = c.held.get();
      if (!records) {
        c.file->read(c.block, bytes);
        if (!scratch) scratch = std::make_unique_for_overwrite<Record[]>(kChunk);
        std::memcpy(scratch.get(), bytes.data(), n * sizeof(Record));
        records = scratch.get();
      }
      for (size_t i = 0; i < n; ++i) {
        const Record& r = records[i];
        f(r.op, transports_.str(r.transport), r.src, r.dst, r.size_mb, r.time_ms);
      }
      left -= n;
    }
  }

  // The observations as LinkObservations viewing the set's strings (for tests).
  std::vector<LinkObservation> to_vector() const;

 private:
  struct Record {
    uint32_t op;         // id in keys_
    uint32_t transport;  // id in transports_
    int32_t src, dst;
    double size_mb, time_ms;
  };
  static_assert(sizeof(Record) == 32);
  static constexpr size_t kChunk = size_t{1} << 14;  // records per chunk (512 KiB)
  // A chunk held in memory, or parked in `file` at `block`.
  struct Chunk {
    std::unique_ptr<Record[]> held;
    std::shared_ptr<runtime::SpillFile> file;
    runtime::SpillFile::Block block;
  };
  // Parks the last chunk, which is full, when a file is given.
  void park_last();

  // Appends one observation of op key id `op` unless find_slow_links() would skip it.
  void add_one(uint32_t op, int src, int dst, std::string_view transport, double size_mb,
               double time_ms);

  double min_size_mb_ = 0;
  io::StringPool keys_;        // the op keys
  io::StringPool transports_;  // HCCS, RDMA, ...
  std::vector<Chunk> chunks_;
  size_t size_ = 0;
  std::shared_ptr<runtime::SpillFile> file_;  // null: chunks held (none given, or it failed)
  std::string problem_;
  size_t parked_ = 0;
};

// find_slow_links() over a LinkObservationSet: the same findings, bit for bit, as over the
// vector of the same observations. opts.min_size_mb must be at least the set's min_size_mb()
// (std::invalid_argument otherwise).
std::vector<SlowLinkFinding> find_slow_links(const LinkObservationSet& obs,
                                             const SlowLinkOptions& opts = {},
                                             int* unjudged = nullptr, int* overflowed = nullptr);

}  // namespace cs::analysis
