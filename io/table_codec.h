#pragma once
// An io::Table packed to bytes and back (io/byte_buffer.h's little-endian format): how a table is
// parked on disk while it waits for a later reader (cluster/parked_table.h). Every column kind
// round-trips: plain and dictionary-encoded strings, ints, doubles (NaN and infinities bit for
// bit), names and units.
//
//   io::ByteWriter w; io::pack_table(t, w);
//   io::ByteReader r(w.data()); io::Table back = io::unpack_table(r);

#include "io/byte_buffer.h"
#include "io/table.h"

namespace cs::io {

// Appends `t` to `w`.
void pack_table(const Table& t, ByteWriter& w);
// Reads one table written by pack_table. Throws std::runtime_error on a short or damaged buffer.
Table unpack_table(ByteReader& r);

// The same a piece at a time, so that a big table is never held twice: the table's name and
// column count, then each column on its own (pack_column's bytes, exactly
// packed_column_size(c) of them), read back in the same order.
void pack_table_head(const Table& t, ByteWriter& w);
void pack_column(const Column& c, ByteWriter& w);
size_t packed_column_size(const Column& c);
// The table's name and its column count (the columns are to be added by unpack_column).
Table unpack_table_head(ByteReader& r, uint32_t& columns);
// Appends the next column to `t`. Throws like unpack_table.
void unpack_column(ByteReader& r, Table& t);

}  // namespace cs::io
