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
#include "readers/transport_name.h"

namespace cs::readers {

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
// Its texts are ids into its file's MatrixFile::texts: file.link_key(l), file.op_name(l).
// 64 bytes: every rank's ~650 links are held at once.
struct MatrixLink : io::NumFields<kLinkNumFieldCount> {
  TransportName transport;  // "Transport Type": HCCS, RDMA, PCIE, SIO, LOCAL, ...
  bool has_op_name = false;
  int src_local = -1;  // parsed from the key; -1 if unparseable
  int dst_local = -1;
  uint32_t link_id = io::kNoString;     // key as written, e.g. "0-1"
  uint32_t op_name_id = io::kNoString;  // "Op Name" (kNoString when absent)
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
  bool p2p_first = false;  // as CommStep::p2p_first
};

struct MatrixFile {
  std::vector<MatrixStep> steps;
  // The link keys and op names of its links, each distinct text once (a rank's 650 links use
  // about 8 keys and 150 op names). Shared by copies of the file.
  std::shared_ptr<io::StringPool> texts = std::make_shared<io::StringPool>();

  // The id of `s` in texts, adding it when new.
  uint32_t keep(std::string_view s) { return texts->intern(s); }
  // A link's key as written ("0-1") and its "Op Name" ("" when absent).
  std::string_view link_key(const MatrixLink& l) const { return texts->str(l.link_id); }
  std::string_view op_name(const MatrixLink& l) const { return texts->str(l.op_name_id); }
};

// The op type of an op name as the matrix producer derives it: the leftmost match in the
// lower-cased name of send|reduce|invalid|broadcast|allreduce|receive|allgather|reducescatter|
// scatter|alltoall|alltoallv|alltoallvc|batchsendrecv. "hcom_allReduce_1" -> "allreduce",
// "hcom_reduceScatter_2" -> "reduce". "" when nothing matches.
std::string matrix_op_type(std::string_view op_name);

bool read_communication_matrix_json(const std::string& path, MatrixFile& out,
                                    io::Diagnostics& diag);
bool parse_communication_matrix_json(std::string_view json, const std::string& source,
                                     MatrixFile& out, io::Diagnostics& diag);

}  // namespace cs::readers
