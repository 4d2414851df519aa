#pragma once
// communication_matrix.json (one per rank): per step, per
// "<optype>-<top1|middle|bottom1|...|total>@<group>" key, links "src-dst" between LOCAL ranks of
// the group. See formats.md §3.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/num_fields.h"
#include "io/py_format.h"
#include "io/string_pool.h"
#include "io/transport_name.h"

namespace cs::io {

// "Transit Size(MB)" .. "Large Packet Ratio" of a link, in producer order.
enum LinkNumField : int {
  kLinkSizeMb = 0,        // "Transit Size(MB)"
  kLinkTimeMs,            // "Transit Time(ms)"
  kLinkBandwidthGbps,     // "Bandwidth(GB/s)"
  kLinkUtilization,       // "Bandwidth(Utilization)"
  kLinkLargePacketRatio,  // "Large Packet Ratio"
  kLinkNumFieldCount
};

// One link; its numbers are has(f), get(f), num(f) with f a LinkNumField (0.0 when absent).
// Its texts are views into its file's MatrixFile::texts (or into string literals).
struct MatrixLink : NumFields<kLinkNumFieldCount> {
  std::string_view link;  // key as written, e.g. "0-1"
  int src_local = -1;     // parsed from link; -1 if unparseable
  int dst_local = -1;
  TransportName transport;  // "Transport Type": HCCS, RDMA, PCIE, SIO, LOCAL, ...
  bool has_op_name = false;
  std::string_view op_name;  // "Op Name"
};

struct MatrixOp {
  std::string key;  // "allreduce-top1@6297232067196334501" (or a plain op name in some producers)
  std::vector<MatrixLink> links;  // file order

  std::string_view group() const;    // after the last '@', "" when none
  std::string_view op_part() const;  // before the last '@'
};

struct MatrixStep {
  std::string step;
  std::vector<MatrixOp> collective;
  std::vector<MatrixOp> p2p;
};

struct MatrixFile {
  std::vector<MatrixStep> steps;
  // The link keys and op names its links view, each distinct text once (a rank's 600 links use
  // about 8 keys and 150 op names). Shared by copies of the file, so their views stay valid.
  std::shared_ptr<StringPool> texts = std::make_shared<StringPool>();

  // `s`, kept in texts.
  std::string_view keep(std::string_view s) { return texts->str(texts->intern(s)); }
};

// The op type of an op name as the matrix producer derives it: the leftmost match in the
// lower-cased name of send|reduce|invalid|broadcast|allreduce|receive|allgather|reducescatter|
// scatter|alltoall|alltoallv|alltoallvc|batchsendrecv. "hcom_allReduce_1" -> "allreduce",
// "hcom_reduceScatter_2" -> "reduce". "" when nothing matches.
std::string matrix_op_type(std::string_view op_name);

bool read_communication_matrix_json(const std::string& path, MatrixFile& out, Diagnostics& diag);
bool parse_communication_matrix_json(std::string_view json, const std::string& source,
                                     MatrixFile& out, Diagnostics& diag);

}  // namespace cs::io
