#include "io/json/gzip_input.h"

#include <zlib.h>

#include "io/json/json_input.h"

#include <algorithm>
#include <cstring>

namespace cs::io {

bool looks_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

namespace {

// The ISIZE footer of the last gzip member: the uncompressed size modulo 2^32 (a size hint).
size_t gzip_size_hint(std::string_view data) {
  if (data.size() < 18) return data.size() * 4;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
  const size_t isize = size_t(p[0]) | size_t(p[1]) << 8 | size_t(p[2]) << 16 | size_t(p[3]) << 24;
  // A corrupt footer must not make us allocate gigabytes: deflate expands at most ~1032x.
  return std::min(std::max(isize, data.size()), data.size() * 1032);
}

struct ZStream {
  z_stream s{};
  bool ok = false;
  ZStream() { ok = inflateInit2(&s, 15 + 32) == Z_OK; }  // 15+32: gzip or zlib header
  ~ZStream() {
    if (ok) inflateEnd(&s);
  }
};

}  // namespace

bool inflate_gzip(std::string_view data, const std::string& source, simdjson::padded_string& out,
                  Diagnostics& diag) {
  ZStream z;
  if (!z.ok) {
    diag.error(source, 0, "cannot initialise zlib", "out of memory? try again with more memory");
    return false;
  }
  // Inflate straight into the padded buffer simdjson reads: with the right size hint (the usual
  // single-member file) the text is written once, with no zero fill and no copy afterwards.
  simdjson::padded_string buf(gzip_size_hint(data));
  size_t produced = 0;
  const auto out_of_memory = [&] {
    diag.error(source, 0, "out of memory inflating the gzip data",
               "decompress the file with gunzip to check its size; free memory");
    return false;
  };
  if (buf.data() == nullptr) return out_of_memory();
  z.s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  size_t in_left = data.size();
  for (;;) {
    if (produced == buf.size()) {  // the hint was short (concatenated members, > 4 GiB)
      simdjson::padded_string bigger(std::max<size_t>(buf.size() * 2, 1 << 16));
      if (bigger.data() == nullptr) return out_of_memory();
      std::memcpy(bigger.data(), buf.data(), produced);
      buf = std::move(bigger);
    }
    const size_t out_chunk = std::min<size_t>(buf.size() - produced, 1u << 30);
    const size_t in_chunk = std::min<size_t>(in_left, 1u << 30);
    z.s.next_out = reinterpret_cast<Bytef*>(buf.data() + produced);
    z.s.avail_out = static_cast<uInt>(out_chunk);
    z.s.avail_in = static_cast<uInt>(in_chunk);
    const int rc = inflate(&z.s, Z_NO_FLUSH);
    produced += out_chunk - z.s.avail_out;
    in_left -= in_chunk - z.s.avail_in;
    const int64_t in_offset = static_cast<int64_t>(data.size() - in_left);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (files joined with cat); trailing zero padding is allowed.
      size_t skip = 0;
      while (skip < in_left && data[data.size() - in_left + skip] == '\0') ++skip;
      if (skip == in_left) break;
      if (!looks_gzip(data.substr(data.size() - in_left + skip))) {
        diag.warn(source, 0, "garbage after the end of the gzip stream was ignored",
                  "the file may have been appended to; re-compress it", in_offset);
        break;
      }
      in_left -= skip;
      z.s.next_in =
          reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + data.size() - in_left));
      inflateReset(&z.s);
      continue;
    }
    if (rc == Z_BUF_ERROR && in_left == 0 && z.s.avail_out != 0) {
      diag.error(source, 0, "gzip stream is truncated (ends before its end marker)",
                 "the file was cut short; copy it again from the job's output", in_offset);
      return false;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      diag.error(
          source, 0, std::string("gzip data is corrupt: ") + (z.s.msg ? z.s.msg : "inflate failed"),
          "the file is damaged; copy it again or decompress it with gunzip to check", in_offset);
      return false;
    }
  }
  if (produced == buf.size())
    out = std::move(buf);
  else
    out = simdjson::padded_string(buf.data(), produced);
  return true;
}

bool load_json_maybe_gzip(const std::string& path, simdjson::padded_string& out,
                          Diagnostics& diag) {
  simdjson::padded_string raw;
  if (!load_json_file(path, raw, diag)) return false;
  const std::string_view view(raw.data(), raw.size());
  if (!looks_gzip(view)) {
    out = std::move(raw);
    return true;
  }
  return inflate_gzip(view, path, out, diag);
}

}  // namespace cs::io
