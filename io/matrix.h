#pragma once
// communication_matrix.json (one per rank): per step, per
// "<optype>-<top1|middle|bottom1|...|total>@<group>" key, links "src-dst" between LOCAL ranks of
// the group. See formats.md §3.

#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/py_format.h"

namespace cs::io {

struct MatrixLink {
  std::string link;    // key as written, e.g. "0-1"
  int src_local = -1;  // parsed from link; -1 if unparseable
  int dst_local = -1;
  std::string transport;   // "Transport Type": HCCS, RDMA, PCIE, SIO, LOCAL, ...
  Num size_mb;             // "Transit Size(MB)"
  Num time_ms;             // "Transit Time(ms)"
  Num bandwidth_gbps;      // "Bandwidth(GB/s)"
  Num utilization;         // "Bandwidth(Utilization)"
  Num large_packet_ratio;  // "Large Packet Ratio"
  std::string op_name;     // "Op Name"
  bool has_utilization = false, has_large_packet_ratio = false, has_op_name = false;
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
