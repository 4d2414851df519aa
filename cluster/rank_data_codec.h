#pragma once
// Lossless binary packing of RankData (and RankEntry) for moving parsed ranks between MPI
// processes. unpack(pack(x)) == x bit for bit, so outputs do not depend on which process parsed
// which rank.

#include <vector>

#include "cluster/rank_data.h"
#include "io/byte_buffer.h"

namespace cs::cluster {

void pack_rank_entry(const RankEntry& e, io::ByteWriter& w);
RankEntry unpack_rank_entry(io::ByteReader& r);

void pack_rank_data(const RankData& d, io::ByteWriter& w);
RankData unpack_rank_data(io::ByteReader& r);

// A list of entries (discovery result broadcast from rank 0).
std::vector<char> pack_rank_entries(const std::vector<RankEntry>& entries);
std::vector<RankEntry> unpack_rank_entries(const std::vector<char>& buf);

}  // namespace cs::cluster
