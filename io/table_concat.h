#pragma once
// Rows of one table appended to another with the same columns: how a table built and parked in
// chunks (cluster/parked_table.h) is made whole again. A dictionary-encoded string column
// (Column::encoded) keeps one dictionary: the chunk's values are added to it once each.
//
//   io::Table whole = first_chunk; io::append_rows(whole, std::move(second_chunk));

#include "io/table.h"

namespace cs::io {

// Appends `chunk`'s rows to `into`. Throws std::runtime_error when the two do not have the same
// columns (names, kinds and encodings, in order).
void append_rows(Table& into, Table chunk);

}  // namespace cs::io
