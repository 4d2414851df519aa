#pragma once
// One rank's communication ops (communication.json), held either as parsed data or packed to
// bytes (rank_data_codec.h's wire format, in pages of their own): packed, they take about half
// the memory, so the root holds them that way through the matrix merge, its peak. The packing is
// hidden: the ops are reached only through read() and edit(), which see them in either state, so
// no analysis can read a packed rank as "no ops".
//
//   io::CommunicationFile scratch;  // filled only while the rank is packed
//   for (const io::CommStep& step : rank.communication.read(scratch).steps) ...
//   rank.communication.unpack();   // memory policy: unpack once, in the room the matrix left

#include <utility>

#include "readers/communication.h"
#include "runtime/page_buffer.h"

namespace cs::load {

class RankCommunication {
 public:
  RankCommunication() = default;
  // Holds parsed ops (unpacked).
  explicit RankCommunication(readers::CommunicationFile file) : file_(std::move(file)) {}

  // The ops, whatever the state: the held data, or, while packed, the packed bytes unpacked into
  // `scratch` (which is then what is returned; the rank stays packed). Throws
  // std::runtime_error when packed bytes are damaged.
  const readers::CommunicationFile& read(readers::CommunicationFile& scratch) const;
  // The ops to fill or change (readers, --step filters): unpacked first when packed.
  readers::CommunicationFile& edit();

  // True while the ops are held packed.
  bool packed() const { return !packed_.empty(); }
  // Packs the ops (nothing when packed already).
  void pack();
  // Unpacks the ops and gives the packed pages back (nothing when not packed). Throws
  // std::runtime_error when the bytes are damaged.
  void unpack();

  // The packed bytes (empty when unpacked), for the wire format (rank_data_codec.cpp).
  const runtime::PageBuffer& packed_bytes() const { return packed_; }
  // Holds `bytes`, one rank's ops in the wire format, packed (drops any unpacked ops).
  void adopt_packed(runtime::PageBuffer bytes);

 private:
  readers::CommunicationFile file_;  // empty while packed
  runtime::PageBuffer packed_;       // empty while unpacked
};

}  // namespace cs::load
