#pragma once
// Lossless binary packing of RankData (and RankEntry) for moving parsed ranks between MPI
// processes. unpack(pack(x)) == x bit for bit, so outputs do not depend on which process parsed
// which rank.

#include <vector>

#include "io/byte_buffer.h"
#include "load/rank_data.h"
#include "load/rank_spill.h"

namespace cs::load {

void pack_rank_entry(const RankEntry& e, io::ByteWriter& w);
RankEntry unpack_rank_entry(io::ByteReader& r);

// A rank's communication ops, matrix, operator table and host summary travel packed, as
// RankCommunication, RankMatrix, RankOperators and RankHost hold them packed (a rank already
// holding them packed is sent as is).
void pack_rank_data(const RankData& d, io::ByteWriter& w);
// keep_communication_packed: leave the communication ops, matrix, operator table, step trace and
// host summary packed (ParkedFile::packed). With `spill` instead, they go from `r`'s bytes
// straight into its file (RankSpill::park_packed): the root of `cluster` receiving another
// process's ranks then maps and frees no pages per part.
RankData unpack_rank_data(io::ByteReader& r, bool keep_communication_packed = false,
                          RankSpill* spill = nullptr);

// One section of the wire format, as ParkedFile packs it: a rank's communication ops (per step
// its ops), its matrix (its text table, then per step its ops and links), its operator table
// (stats::OperatorTable::pack) or its host summary (host::pack_summary).
void pack_section(const readers::CommunicationFile& c, io::ByteWriter& w);
void pack_section(const readers::MatrixFile& m, io::ByteWriter& w);
void pack_section(const stats::OperatorTable& t, io::ByteWriter& w);
void pack_section(const host::HostSummary& s, io::ByteWriter& w);
void pack_section(const readers::StepTraceFile& s, io::ByteWriter& w);
// Fills `out` from one section. Throws std::runtime_error when the bytes are damaged or more
// bytes follow. A CommunicationFile may hold an earlier unpack: it is overwritten in place (the
// same result as a fresh file, its memory reused); the others must be fresh.
void unpack_section(io::ByteReader& r, readers::CommunicationFile& out);
void unpack_section(io::ByteReader& r, readers::MatrixFile& out);
void unpack_section(io::ByteReader& r, stats::OperatorTable& out);
void unpack_section(io::ByteReader& r, host::HostSummary& out);
void unpack_section(io::ByteReader& r, readers::StepTraceFile& out);

// A list of entries (discovery result broadcast from rank 0).
std::vector<char> pack_rank_entries(const std::vector<RankEntry>& entries);
std::vector<RankEntry> unpack_rank_entries(const std::vector<char>& buf);

}  // namespace cs::load
