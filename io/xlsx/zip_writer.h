#pragma once
// A ZIP archive built in memory (PKWARE APPNOTE 6.3: local file headers, deflated data, the
// central directory and its end record; no ZIP64, so up to 65,535 entries and 4 GiB), what an
// Office Open XML package (.xlsx) is. Entries are deflated with zlib (raw deflate, method 8) and
// carry their CRC-32; times are a fixed 1980-01-01 00:00 so that the same content gives the same
// bytes.
//
//   io::ZipWriter zip;
//   zip.add("[Content_Types].xml", types_xml);
//   std::string bytes;
//   if (!zip.finish(bytes, error)) ...

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io {

class ZipWriter {
 public:
  // Appends one file named `name` (forward slashes, no leading slash) holding `data`. False
  // (`error` set) when deflate fails or the archive would outgrow the ZIP format's 32-bit sizes.
  bool add(std::string_view name, std::string_view data, std::string& error);
  // Writes the central directory and returns the whole archive in `out`. False (`error` set) when
  // there are too many entries for the format.
  bool finish(std::string& out, std::string& error);

 private:
  struct Entry {
    std::string name;
    uint32_t crc = 0, compressed = 0, size = 0, offset = 0;
  };
  static void put_entry_fields(std::string& out, const Entry& e);
  std::string bytes_;
  std::vector<Entry> entries_;
};

}  // namespace cs::io
