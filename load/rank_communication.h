#pragma once
// One rank's communication ops (communication.json), held as parsed data, packed to bytes
// (rank_data_codec.h's wire format, in pages of their own: about half the memory), or spilled:
// the packed bytes in a runtime::SpillFile on disk, read back on each read() (the root of
// `cluster` holds every rank's ops that way, so its memory does not grow with them). The state
// is hidden: the ops are reached only through read() and edit(), which see them in any state,
// so no analysis can read a packed or spilled rank as "no ops".
//
//   io::CommunicationFile scratch;  // filled only while the rank is packed
//   for (const io::CommStep& step : rank.communication.read(scratch).steps) ...
//   rank.communication.unpack();   // memory policy: unpack once, in the room the matrix left

#include <memory>
#include <utility>
#include <vector>

#include "readers/communication.h"
#include "runtime/page_buffer.h"
#include "runtime/spill_file.h"

namespace cs::load {

class RankCommunication {
 public:
  RankCommunication() = default;
  // Holds parsed ops (unpacked).
  explicit RankCommunication(readers::CommunicationFile file) : file_(std::move(file)) {}

  // The ops, whatever the state: the held data, or, while packed or spilled, the packed bytes
  // unpacked into `scratch` (which is then what is returned; the rank stays packed or spilled).
  // Throws std::runtime_error when packed bytes are damaged or the spill file cannot be read.
  const readers::CommunicationFile& read(readers::CommunicationFile& scratch) const;
  // The ops to fill or change (readers, --step filters): unpacked first when packed.
  readers::CommunicationFile& edit();

  // True while the ops are held packed (in memory).
  bool packed() const { return !packed_.empty(); }
  // True while the ops are in a spill file.
  bool spilled() const { return spill_ != nullptr; }
  // Packs the ops (nothing when packed or spilled already).
  void pack();
  // Unpacks the ops and gives the packed pages back (nothing when neither packed nor spilled).
  // Throws std::runtime_error when the bytes are damaged.
  void unpack();
  // Moves the ops to `file`, packed first when they are not (nothing when spilled already).
  // Throws std::runtime_error when the file cannot be written.
  void spill(const std::shared_ptr<runtime::SpillFile>& file);

  // The packed bytes (empty when unpacked), for the wire format (rank_data_codec.cpp).
  const runtime::PageBuffer& packed_bytes() const { return packed_; }
  // The packed bytes whatever the state (packed, spilled or packed from the parsed ops now),
  // into `out`.
  void packed_copy(std::vector<char>& out) const;
  // Holds `bytes`, one rank's ops in the wire format, packed (drops any unpacked ops).
  void adopt_packed(runtime::PageBuffer bytes);

 private:
  readers::CommunicationFile file_;            // empty while packed
  runtime::PageBuffer packed_;                 // empty while unpacked
  std::shared_ptr<runtime::SpillFile> spill_;  // set while spilled: the bytes are at block_
  runtime::SpillFile::Block block_;
};

}  // namespace cs::load
