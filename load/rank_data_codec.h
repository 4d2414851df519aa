#pragma once
// Lossless binary packing of RankData (and RankEntry) for moving parsed ranks between MPI
// processes. unpack(pack(x)) == x bit for bit, so outputs do not depend on which process parsed
// which rank.

#include <vector>

#include "io/byte_buffer.h"
#include "load/rank_data.h"

namespace cs::load {

void pack_rank_entry(const RankEntry& e, io::ByteWriter& w);
RankEntry unpack_rank_entry(io::ByteReader& r);

// A rank's communication data travels packed, as RankCommunication holds it packed (a rank
// already holding it packed is sent as is).
void pack_rank_data(const RankData& d, io::ByteWriter& w);
// keep_communication_packed: leave the communication data packed (RankCommunication::packed).
RankData unpack_rank_data(io::ByteReader& r, bool keep_communication_packed = false);

// A list of entries (discovery result broadcast from rank 0).
std::vector<char> pack_rank_entries(const std::vector<RankEntry>& entries);
std::vector<RankEntry> unpack_rank_entries(const std::vector<char>& buf);

}  // namespace cs::load
