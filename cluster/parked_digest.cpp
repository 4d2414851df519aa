#include "cluster/parked_digest.h"

#include <exception>
#include <utility>
#include <vector>

namespace cs::cluster {

ParkedMatrixDigest::ParkedMatrixDigest(std::shared_ptr<const report::MatrixDigest> d,
                                       const std::shared_ptr<runtime::SpillFile>& spill) {
  if (!d) return;
  if (spill) {
    try {
      io::ByteWriter w;
      report::pack_matrix_digest(*d, w);
      block_ = spill->append(w.data().data(), w.size());
      spill_ = spill;
      return;
    } catch (const std::exception&) {  // a full disk, say: kept in memory
      block_.reset();
    }
  }
  held_ = std::move(d);
}

std::shared_ptr<const report::MatrixDigest> ParkedMatrixDigest::get() const {
  if (held_ || !block_) return held_;
  std::vector<char> bytes;
  spill_->read(*block_, bytes);
  io::ByteReader r(bytes);
  held_ = report::unpack_matrix_digest(r);
  return held_;
}

}  // namespace cs::cluster
