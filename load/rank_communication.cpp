#include "load/rank_communication.h"

#include <type_traits>
#include <utility>

#include "load/rank_data_codec.h"

namespace cs::load {

using io::ByteReader;
using io::ByteWriter;

template <class File>
ParkedFile<File>::ParkedFile(const ParkedFile& o)
    : file_(o.file_ ? std::make_unique<File>(*o.file_) : nullptr),
      packed_(o.packed_),
      spill_(o.spill_),
      block_(o.block_) {}

template <class File>
ParkedFile<File>& ParkedFile<File>::operator=(const ParkedFile& o) {
  if (this != &o) *this = ParkedFile(o);
  return *this;
}

template <class File>
const File& ParkedFile<File>::held() const {
  static const File kEmpty;
  return file_ ? *file_ : kEmpty;
}

// ParkedFile's packing is the wire format's section of the same data (rank_data_codec.h).
template <class File>
void ParkedFile<File>::pack() {
  if (packed() || spilled()) return;
  ByteWriter w;
  pack_section(held(), w);
  packed_ = runtime::PageBuffer(w.data().data(), w.data().size());
  file_.reset();
}

template <class File>
void ParkedFile<File>::unpack() {
  if (spilled()) {
    std::vector<char> bytes;
    spill_->read(block_, bytes);
    ByteReader r(bytes);
    file_ = std::make_unique<File>();
    unpack_section(r, *file_);
    spill_.reset();
    return;
  }
  if (!packed()) return;
  ByteReader r(packed_.data(), packed_.size());
  file_ = std::make_unique<File>();
  unpack_section(r, *file_);
  packed_.release();
}

template <class File>
void ParkedFile<File>::spill(const std::shared_ptr<runtime::SpillFile>& file) {
  if (spilled()) return;
  if (packed()) {
    block_ = file->append(packed_.data(), packed_.size());
    packed_.release();
  } else {
    ByteWriter w;
    pack_section(held(), w);
    block_ = file->append(w.data().data(), w.data().size());
    file_.reset();
  }
  spill_ = file;
}

template <class File>
void ParkedFile<File>::packed_copy(std::vector<char>& out) const {
  if (spilled()) {
    spill_->read(block_, out);
  } else if (packed()) {
    out.assign(packed_.data(), packed_.data() + packed_.size());
  } else {
    ByteWriter w;
    pack_section(held(), w);
    out = std::move(w.data());
  }
}

namespace {

// `scratch` made ready for unpack_section: a CommunicationFile is overwritten in place (its
// strings and vectors reused when the caller reads rank after rank into the same scratch), the
// other files start fresh.
template <class File>
void ready_for_unpack(File& scratch) {
  if constexpr (!std::is_same_v<File, readers::CommunicationFile>) scratch = File{};
}

// The bytes of a spilled block, read back (no mapping) into this thread's buffer, reused read
// after read: no allocation or clearing of a fresh buffer each time (each rank is read back
// several times). A block over kKeptBytes goes to `large`, freed after the read, so a thread
// never keeps more than that.
constexpr size_t kKeptBytes = 4 << 20;
ByteReader read_spilled(const runtime::SpillFile& spill, const runtime::SpillFile::Block& block,
                        std::vector<char>& large) {
  thread_local std::vector<char> bytes;
  std::vector<char>& into = block.size <= kKeptBytes ? bytes : large;
  spill.read_into(block, into);
  return ByteReader(into.data(), block.size);
}

}  // namespace

template <class File>
const File& ParkedFile<File>::read(File& scratch) const {
  if (spilled()) {
    std::vector<char> large;
    ByteReader r = read_spilled(*spill_, block_, large);
    ready_for_unpack(scratch);
    unpack_section(r, scratch);
    return scratch;
  }
  if (!packed()) return held();
  ByteReader r(packed_.data(), packed_.size());
  ready_for_unpack(scratch);
  unpack_section(r, scratch);
  return scratch;
}

template <class File>
File& ParkedFile<File>::edit() {
  unpack();
  if (!file_) file_ = std::make_unique<File>();
  return *file_;
}

template <class File>
void ParkedFile<File>::adopt_packed(runtime::PageBuffer bytes) {
  file_.reset();
  spill_.reset();
  packed_ = std::move(bytes);
}

template class ParkedFile<readers::CommunicationFile>;
template class ParkedFile<readers::MatrixFile>;
template class ParkedFile<stats::OperatorTable>;
template class ParkedFile<host::HostSummary>;
template class ParkedFile<readers::StepTraceFile>;

}  // namespace cs::load
