#pragma once
// One rank's parked data: its communication ops (communication.json), its matrix
// (communication_matrix.json), its operator table (the kernels' statistics) and its host summary
// (host/host_summary.h), each held as parsed data, packed to bytes (rank_data_codec.h's wire
// format, in pages of their own: about half the memory), or spilled: the packed bytes in a
// runtime::SpillFile on disk, read back on each read() (the root of `cluster` holds every rank's
// ops, matrix, operators and host summary that way, so its memory does not grow with them). The
// state is hidden: the data is reached only through read() and edit(), which see it in any state,
// so no analysis can read a packed or spilled rank as "no ops", "no links", "no kernels" or "no
// host operators".
//
//   io::CommunicationFile scratch;  // filled only while the rank is packed
//   for (const io::CommStep& step : rank.communication.read(scratch).steps) ...
//   rank.communication.unpack();   // memory policy: unpack once, in the room the matrix left

#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "host/host_summary.h"
#include "readers/communication.h"
#include "readers/matrix.h"
#include "readers/step_trace.h"
#include "runtime/page_buffer.h"
#include "runtime/spill_file.h"
#include "stats/operator_table.h"

namespace cs::load {

// File: readers::CommunicationFile, readers::MatrixFile, stats::OperatorTable,
// host::HostSummary or readers::StepTraceFile (the five instantiations, defined with their packing
// in rank_data_codec.cpp).
template <class File>
class ParkedFile {
 public:
  ParkedFile() = default;
  // Holds parsed data (unpacked).
  explicit ParkedFile(File file) : parked_(std::make_unique<File>(std::move(file))) {}
  ParkedFile(const ParkedFile& o);
  ParkedFile& operator=(const ParkedFile& o);
  ParkedFile(ParkedFile&&) noexcept = default;
  ParkedFile& operator=(ParkedFile&&) noexcept = default;

  // The data, whatever the state: the held data, or, while packed or spilled, the packed bytes
  // unpacked into `scratch` (which is then what is returned; the rank stays packed or spilled).
  // Throws std::runtime_error when packed bytes are damaged or the spill file cannot be read.
  const File& read(File& scratch) const;
  // The data to fill or change (readers, --step filters): unpacked first when packed.
  File& edit();

  // True while the data is held packed (in memory).
  bool packed() const {
    const runtime::PageBuffer* b = std::get_if<runtime::PageBuffer>(&parked_);
    return b && !b->empty();
  }
  // True while the data is in a spill file.
  bool spilled() const { return std::holds_alternative<Spilled>(parked_); }
  // Packs the data (nothing when packed or spilled already).
  void pack();
  // Unpacks the data and gives the packed pages back (nothing when neither packed nor spilled).
  // Throws std::runtime_error when the bytes are damaged.
  void unpack();
  // Moves the data to `file`, packed first when it is not (nothing when spilled already).
  // Throws std::runtime_error when the file cannot be written (the data is then as before).
  void spill(const std::shared_ptr<runtime::SpillFile>& file);

  // The packed bytes (empty when unpacked), for the wire format (rank_data_codec.cpp).
  const runtime::PageBuffer& packed_bytes() const;
  // The packed bytes whatever the state (packed, spilled or packed from the parsed data now),
  // into `out`.
  void packed_copy(std::vector<char>& out) const;
  // Holds `bytes`, one rank's data in the wire format, packed (drops any unpacked data).
  void adopt_packed(runtime::PageBuffer bytes);
  // Puts `n` bytes at `p`, one rank's data in the wire format, straight into `file` (drops any
  // data held): never copied into memory of the part's own. Throws std::runtime_error when the
  // file cannot be written (the part is then as before).
  void spill_packed(const std::shared_ptr<runtime::SpillFile>& file, const char* p, size_t n);

 private:
  // The held data (the empty File while packed, spilled or empty: no File is made for an empty
  // part, so a parked or emptied part costs no heap: an empty MatrixFile alone allocates its
  // string pool).
  const File& held() const;
  // The held data, or null.
  File* held_ptr() const {
    const std::unique_ptr<File>* f = std::get_if<std::unique_ptr<File>>(&parked_);
    return f ? f->get() : nullptr;
  }
  // Where spilled bytes are.
  struct Spilled {
    std::shared_ptr<runtime::SpillFile> file;
    runtime::SpillFile::Block block;
  };
  // The part: empty, held (parsed), packed in memory, or in a spill file. One of the four, so
  // the root's one ParkedFile per part per rank costs 40 bytes (five parts a rank).
  std::variant<std::monostate, std::unique_ptr<File>, runtime::PageBuffer, Spilled> parked_;
};

// A rank's communication ops.
using RankCommunication = ParkedFile<readers::CommunicationFile>;
// A rank's matrix links (with their text table).
using RankMatrix = ParkedFile<readers::MatrixFile>;
// A rank's operator table (keyed by the --group-by key).
using RankOperators = ParkedFile<stats::OperatorTable>;
// A rank's host summary (its operators' host/device time, its Free time per step by cause).
using RankHost = ParkedFile<host::HostSummary>;
// A rank's step trace (step_trace_time.csv or the databases' step times).
using RankStepTrace = ParkedFile<readers::StepTraceFile>;

extern template class ParkedFile<readers::CommunicationFile>;
extern template class ParkedFile<readers::MatrixFile>;
extern template class ParkedFile<stats::OperatorTable>;
extern template class ParkedFile<host::HostSummary>;
extern template class ParkedFile<readers::StepTraceFile>;

}  // namespace cs::load
