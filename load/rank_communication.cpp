#include "load/rank_communication.h"

#include <type_traits>
#include <utility>

#include "load/rank_data_codec.h"

namespace cs::load {

using io::ByteReader;
using io::ByteWriter;

template <class File>
ParkedFile<File>::ParkedFile(const ParkedFile& o) {
  if (const File* f = o.held_ptr()) {
    parked_ = std::make_unique<File>(*f);
  } else if (const auto* b = std::get_if<runtime::PageBuffer>(&o.parked_)) {
    parked_ = *b;
  } else if (const auto* sp = std::get_if<Spilled>(&o.parked_)) {
    parked_ = *sp;
  }
}

template <class File>
ParkedFile<File>& ParkedFile<File>::operator=(const ParkedFile& o) {
  if (this != &o) *this = ParkedFile(o);
  return *this;
}

template <class File>
const File& ParkedFile<File>::held() const {
  static const File kEmpty;
  const File* f = held_ptr();
  return f ? *f : kEmpty;
}

// ParkedFile's packing is the wire format's section of the same data (rank_data_codec.h).
template <class File>
void ParkedFile<File>::pack() {
  if (packed() || spilled()) return;
  ByteWriter w;
  pack_section(held(), w);
  parked_ = runtime::PageBuffer(w.data().data(), w.data().size());
}

template <class File>
const runtime::PageBuffer& ParkedFile<File>::packed_bytes() const {
  static const runtime::PageBuffer kNone;
  const runtime::PageBuffer* b = std::get_if<runtime::PageBuffer>(&parked_);
  return b ? *b : kNone;
}

template <class File>
void ParkedFile<File>::unpack() {
  if (const Spilled* s = std::get_if<Spilled>(&parked_)) {
    std::vector<char> bytes;
    s->file->read(s->block, bytes);
    ByteReader r(bytes);
    auto file = std::make_unique<File>();
    unpack_section(r, *file);
    parked_ = std::move(file);
    return;
  }
  if (!packed()) return;
  const runtime::PageBuffer& b = std::get<runtime::PageBuffer>(parked_);
  ByteReader r(b.data(), b.size());
  auto file = std::make_unique<File>();
  unpack_section(r, *file);
  parked_ = std::move(file);
}

template <class File>
void ParkedFile<File>::spill(const std::shared_ptr<runtime::SpillFile>& file) {
  if (spilled()) return;
  if (packed()) {
    const runtime::PageBuffer& b = std::get<runtime::PageBuffer>(parked_);
    parked_ = Spilled{file, file->append(b.data(), b.size())};
  } else {
    ByteWriter w;
    pack_section(held(), w);
    parked_ = Spilled{file, file->append(w.data().data(), w.data().size())};
  }
}

template <class File>
void ParkedFile<File>::packed_copy(std::vector<char>& out) const {
  if (const Spilled* s = std::get_if<Spilled>(&parked_)) {
    s->file->read(s->block, out);
  } else if (packed()) {
    const runtime::PageBuffer& b = std::get<runtime::PageBuffer>(parked_);
    out.assign(b.data(), b.data() + b.size());
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
  if (const Spilled* s = std::get_if<Spilled>(&parked_)) {
    std::vector<char> large;
    ByteReader r = read_spilled(*s->file, s->block, large);
    ready_for_unpack(scratch);
    unpack_section(r, scratch);
    return scratch;
  }
  if (!packed()) return held();
  const runtime::PageBuffer& b = std::get<runtime::PageBuffer>(parked_);
  ByteReader r(b.data(), b.size());
  ready_for_unpack(scratch);
  unpack_section(r, scratch);
  return scratch;
}

template <class File>
File& ParkedFile<File>::edit() {
  unpack();
  if (File* f = held_ptr()) return *f;
  auto file = std::make_unique<File>();
  File& out = *file;
  parked_ = std::move(file);
  return out;
}

template <class File>
void ParkedFile<File>::adopt_packed(runtime::PageBuffer bytes) {
  parked_ = std::move(bytes);
}

template <class File>
void ParkedFile<File>::spill_packed(const std::shared_ptr<runtime::SpillFile>& file, const char* p,
                                    size_t n) {
  parked_ = Spilled{file, file->append(p, n)};
}

template class ParkedFile<readers::CommunicationFile>;
template class ParkedFile<readers::MatrixFile>;
template class ParkedFile<stats::OperatorTable>;
template class ParkedFile<host::HostSummary>;
template class ParkedFile<readers::StepTraceFile>;

}  // namespace cs::load
