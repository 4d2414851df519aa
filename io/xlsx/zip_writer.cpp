#include "io/xlsx/zip_writer.h"

#include <zlib.h>

#include <limits>

namespace cs::io {

namespace {

constexpr uint16_t kVersion = 20;  // 2.0: deflate
constexpr uint16_t kDeflate = 8;
constexpr uint16_t kUtf8Names = 1 << 11;                // general purpose flag 11: names are UTF-8
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
constexpr uint16_t kDosTime = 0;

void put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Raw deflate (no zlib header), as ZIP's method 8 stores it.
bool deflate_raw(std::string_view in, std::string& out) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  out.resize(deflateBound(&z, static_cast<uLong>(in.size())));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END;
}

}  // namespace

// The fields a local file header and a central directory header share, from the flags to the
// extra field's length (none).
void ZipWriter::put_entry_fields(std::string& out, const Entry& e) {
  put16(out, kUtf8Names);
  put16(out, kDeflate);
  put16(out, kDosTime);
  put16(out, kDosDate);
  put32(out, e.crc);
  put32(out, e.compressed);
  put32(out, e.size);
  put16(out, static_cast<uint16_t>(e.name.size()));
  put16(out, 0);  // extra field length
}

bool ZipWriter::add(std::string_view name, std::string_view data, std::string& error) {
  constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
  if (data.size() >= kMax || name.size() > 0xffff) {
    error = "a part of the archive is larger than the ZIP format holds without ZIP64";
    return false;
  }
  std::string packed;
  if (!deflate_raw(data, packed)) {
    error = "zlib could not deflate a part of the archive";
    return false;
  }
  if (bytes_.size() + packed.size() + 30 + name.size() >= kMax) {
    error = "the archive is larger than the ZIP format holds without ZIP64 (4 GiB)";
    return false;
  }
  Entry e;
  e.name = std::string(name);
  e.crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  e.compressed = static_cast<uint32_t>(packed.size());
  e.size = static_cast<uint32_t>(data.size());
  e.offset = static_cast<uint32_t>(bytes_.size());
  put32(bytes_, 0x04034b50);  // local file header
  put16(bytes_, kVersion);
  put_entry_fields(bytes_, e);
  bytes_ += e.name;
  bytes_ += packed;
  entries_.push_back(std::move(e));
  return true;
}

bool ZipWriter::finish(std::string& out, std::string& error) {
  if (entries_.size() > 0xffff) {
    error = "more than 65,535 parts in one archive (the ZIP format holds no more without ZIP64)";
    return false;
  }
  const auto directory = static_cast<uint32_t>(bytes_.size());
  for (const Entry& e : entries_) {
    put32(bytes_, 0x02014b50);  // central directory header
    put16(bytes_, kVersion);    // made by: MS-DOS, 2.0
    put16(bytes_, kVersion);
    put_entry_fields(bytes_, e);
    put16(bytes_, 0);  // comment
    put16(bytes_, 0);  // disk number
    put16(bytes_, 0);  // internal attributes
    put32(bytes_, 0);  // external attributes
    put32(bytes_, e.offset);
    bytes_ += e.name;
  }
  const auto size = static_cast<uint32_t>(bytes_.size() - directory);
  put32(bytes_, 0x06054b50);  // end of central directory
  put16(bytes_, 0);
  put16(bytes_, 0);
  put16(bytes_, static_cast<uint16_t>(entries_.size()));
  put16(bytes_, static_cast<uint16_t>(entries_.size()));
  put32(bytes_, size);
  put32(bytes_, directory);
  put16(bytes_, 0);  // comment length
  out = std::move(bytes_);
  bytes_.clear();
  entries_.clear();
  return true;
}

}  // namespace cs::io
