#pragma once
// The report's matrix digest (report/cluster_page/cluster_report.h) held on disk while later work
// runs: finished at the start of stage 4 (it needs the slow links), drawn only at the end, it was
// 2.8 MB of the root's peak at 16,384 ranks beside the communication step's batches
// (docs/root_memory.md). The same idea as cluster/parked_table.h, for the digest.
//
//   ParkedMatrixDigest p(builder.finish(&slow), spill);  // packed into `spill`; the digest freed
//   in.matrix_digest = p.get();                           // read back once, held from then on

#include <memory>
#include <optional>

#include "report/cluster_page/cluster_report.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

class ParkedMatrixDigest {
 public:
  ParkedMatrixDigest() = default;
  // Parks `d` in `spill`; holds it in memory instead when `spill` is null or cannot be written
  // (parking only saves memory). A null `d` is no digest.
  ParkedMatrixDigest(std::shared_ptr<const report::MatrixDigest> d,
                     const std::shared_ptr<runtime::SpillFile>& spill);

  // True when a digest was given.
  bool has_digest() const { return held_ != nullptr || block_.has_value(); }
  // True while the digest is on disk (given, not read back yet).
  bool parked() const { return !held_ && block_.has_value(); }
  // The digest, read back from the spill file on the first call and held from then on; null when
  // none was given. Not thread-safe. Throws std::runtime_error when the file cannot be read or its
  // bytes are damaged.
  std::shared_ptr<const report::MatrixDigest> get() const;

 private:
  mutable std::shared_ptr<const report::MatrixDigest> held_;
  std::shared_ptr<runtime::SpillFile> spill_;
  std::optional<runtime::SpillFile::Block> block_;
};

}  // namespace cs::cluster
