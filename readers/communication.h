#pragma once
// communication.json (one per rank, ASCEND_PROFILER_OUTPUT/): per step, per op, the
// "Communication Time Info" and "Communication Bandwidth Info" blocks. See formats.md §2.
//
// Values are kept as Num (int or float as written) so they can be written back exactly as
// Python would. Field order on output is the canonical producer order below.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/comm_keys.h"
#include "io/diagnostics.h"
#include "io/num_fields.h"
#include "io/py_format.h"
#include "readers/transport_name.h"

namespace cs::readers {

// "Communication Time Info" keys, in producer order.
enum TimeField : int {
  kStartTimestampUs = 0,  // "Start Timestamp(us)"
  kElapseTimeMs,          // "Elapse Time(ms)"
  kTransitTimeMs,         // "Transit Time(ms)"
  kWaitTimeMs,            // "Wait Time(ms)"
  kSyncTimeMs,            // "Synchronization Time(ms)"
  kIdleTimeMs,            // "Idle Time(ms)"
  kWaitTimeRatio,         // "Wait Time Ratio"
  kSyncTimeRatio,         // "Synchronization Time Ratio"
  kTimeFieldCount
};
// The JSON key of each TimeField.
extern const std::array<std::string_view, kTimeFieldCount> kTimeFieldNames;

// The "Communication Time Info" numbers of one op: has(f), get(f) (a double), num(f) (a Num).
using CommTimeInfo = io::NumFields<kTimeFieldCount>;

// One "Size Distribution" entry: packet size (MB, the key as written) -> [count, total ms].
struct SizeBucket {
  std::string size_key;
  io::Num count;
  io::Num duration_ms;
};

// "Communication Bandwidth Info" keys of a transport block, in producer order.
enum TransportField : int {
  kTrSizeMb = 0,        // "Transit Size(MB)"
  kTrTimeMs,            // "Transit Time(ms)"
  kTrBandwidthGbps,     // "Bandwidth(GB/s)" (missing in some producers' Total Op Info)
  kTrLargePacketRatio,  // "Large Packet Ratio"
  kTransportFieldCount
};

// One transport block ("RDMA", "HCCS", "PCIE", "SDMA", "SIO", or any other name seen). Its size
// buckets live in its op (CommOp::size_distribution), after those of the transports before it,
// so a transport is 40 bytes.
struct TransportInfo : io::NumFields<kTransportFieldCount> {
  static constexpr uint16_t kMaxBuckets = 0xffff;
  TransportName name;
  bool has_size_distribution = false;
  uint16_t bucket_count = 0;  // its entries in CommOp::buckets
};

struct CommOp {
  // Key as written: "hcom_allReduce__844_2_1@13681369207305868844" or "Total Op Info".
  std::string name;
  bool has_time_info = false;
  bool has_bandwidth_info = false;
  CommTimeInfo time;
  std::vector<TransportInfo> transports;  // file order
  std::vector<SizeBucket> buckets;        // every transport's size buckets, file order

  // The rank's summary entry (communication.json writes it without a group; io/comm_keys.h).
  bool is_total() const { return name == io::kTotalOpInfo; }
  // The part after the last '@' (the group's double hash), "" when there is none.
  std::string_view group() const;
  // The part before the last '@'.
  std::string_view op_name() const;
  // A transport's "Size Distribution" entries, file order. `t` is one of `transports`.
  std::span<const SizeBucket> size_distribution(const TransportInfo& t) const {
    size_t first = 0;
    for (const TransportInfo* p = transports.data(); p != &t; ++p) first += p->bucket_count;
    return std::span<const SizeBucket>(buckets).subspan(first, t.bucket_count);
  }
  // Appends a bucket to the last transport (the one being read); false (nothing added) when it
  // has TransportInfo::kMaxBuckets already.
  bool add_bucket(SizeBucket b) {
    TransportInfo& t = transports.back();
    if (t.bucket_count == TransportInfo::kMaxBuckets) return false;
    buckets.push_back(std::move(b));
    ++t.bucket_count;
    return true;
  }
};

// True for ops msprof-analyze treats as point-to-point: lower-cased name starts with
// hcom_send, hcom_receive or hcom_batchsendrecv.
bool is_p2p_op_name(std::string_view op_name);

struct CommStep {
  std::string step;                // "step1", or "step" when no step marks were taken
  std::vector<CommOp> collective;  // file order, "Total Op Info" included where present
  std::vector<CommOp> p2p;
  // The file lists "p2p" before "collective" (CANN msprof's adapted flat layout always does):
  // msprof-analyze meets that step's p2p ops first, which orders its documents' groups.
  bool p2p_first = false;
};

struct CommunicationFile {
  std::vector<CommStep> steps;  // file order
};

// Parses a communication.json file. Returns false (with an error diagnostic naming file and
// byte offset) when nothing usable could be read; a partly broken file keeps what was read before
// the damage and reports the rest. Unknown keys are ignored; missing transports are allowed.
bool read_communication_json(const std::string& path, CommunicationFile& out,
                             io::Diagnostics& diag);
// Same, from text already in memory (tests, benchmarks). `source` names it in diagnostics.
bool parse_communication_json(std::string_view json, const std::string& source,
                              CommunicationFile& out, io::Diagnostics& diag);

}  // namespace cs::readers
