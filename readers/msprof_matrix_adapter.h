#pragma once
// CANN msprof's flat communication_matrix.json (PROF_*/analyze/, docs/formats.md §1b) adapted to
// the stepped layout as msprof-analyze's MsprofCommunicationMatrixAdapter does. The flat file has
// one key per op INSTANCE, "<op name>@<group>", mapping "src-dst" links to their numbers. Each
// instance is p2p (name starts with hcom_send / hcom_receive / hcom_batchsendrecv, any case),
// a summary (starts with "total", any case: left out) or collective. Per (op type, group, link)
// the instances' link records, sorted by "Bandwidth(GB/s)" descending (ties keep file order),
// give "<type>-top1@<group>" (the fastest), "-middle" (index n/2), "-bottom1" (the slowest),
// "-bottom2"/"-bottom3" (when there are 2/3 records) and "-total" (Transport Type of the fastest,
// summed size and time, bandwidth = round(size / time, 4), 0 when time is 0). The op type is
// matrix_op_type() of the lower-cased key, or, when it matches none, the key before its first
// "__" (unknown_types lists those). Keys come out in msprof-analyze's dict order.
//
//   std::vector<MatrixOp> instances = ...;  // the flat file's entries, file order
//   MatrixStep step = adapt_msprof_matrix(std::move(instances), file, &unknown);

#include <string>
#include <vector>

#include "readers/matrix.h"

namespace cs::readers {

// The one step "step" of `instances` (the flat file's entries, file order; their links' texts in
// `file`, which also receives the op names). `unknown_types` (optional) receives each op type
// taken from a name that matches no known type, once.
MatrixStep adapt_msprof_matrix(std::vector<MatrixOp> instances, MatrixFile& file,
                               std::vector<std::string>* unknown_types = nullptr);

}  // namespace cs::readers
