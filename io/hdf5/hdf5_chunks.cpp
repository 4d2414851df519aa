#include "io/hdf5/hdf5_chunks.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "runtime/task_runner.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace cs::io {

namespace {

static_assert(std::endian::native == std::endian::little,
              "numbers are copied as the little-endian file types store them");

constexpr size_t kChunkBytes = size_t{1} << 20;

// The raw bytes of rows [first, first + chunk_rows) of `c` as the dataset stores them: numbers
// in little-endian order, strings NUL-padded to `width`; rows past the end are zeros (the fill
// value HDF5 gives the unwritten part of an edge chunk).
std::vector<unsigned char> raw_chunk(const Column& c, size_t first, size_t chunk_rows,
                                     size_t width) {
  std::vector<unsigned char> out(chunk_rows * width, 0);
  const size_t n = std::min(chunk_rows, c.size() - first);
  switch (c.type) {
    case ColumnType::kDouble:
      std::memcpy(out.data(), c.doubles.data() + first, n * 8);
      break;
    case ColumnType::kInt:
      std::memcpy(out.data(), c.ints.data() + first, n * 8);
      break;
    case ColumnType::kString:
      for (size_t i = 0; i < n; ++i) {
        const std::string_view v = c.str(first + i);
        std::memcpy(out.data() + i * width, v.data(), v.size());
      }
      break;
  }
  return out;
}

// HDF5's shuffle filter: byte k of every element together, k = 0, 1, ...; bytes past the last
// whole element stay at the end. Nothing for 1-byte elements or a single element. The elements
// are taken a block at a time (the block's bytes stay in the L1 cache while each of its `width`
// byte planes is written): the same bytes as one pass over all elements per plane.
void shuffle_blocked(const unsigned char* in, unsigned char* out, size_t elements, size_t width) {
  const size_t w = width;
  constexpr size_t kBlockBytes = 16 * 1024;
  const size_t block = std::max<size_t>(16, kBlockBytes / w);
  for (size_t first = 0; first < elements; first += block) {
    const size_t n = std::min(block, elements - first);
    const unsigned char* src = in + first * w;
    for (size_t b = 0; b < w; ++b) {
      unsigned char* dst = out + b * elements + first;
      for (size_t e = 0; e < n; ++e) dst[e] = src[e * w + b];
    }
  }
}

// Whether the shuffle filter moves any byte of n bytes of `width`-byte elements.
bool shuffle_moves(size_t n, size_t width) {
  return width > 1 && n / width > 1;
}

#ifdef __SSE2__
// The shuffle of 8-byte elements, 16 at a time: each group of 8 is an 8x8 byte matrix
// transposed with SSE2's unpacks (byte, then 16-bit, then 32-bit interleaves), and the two
// groups' rows joined so that each of the 8 byte planes gets 16 bytes in one store. Returns the
// number of elements shuffled (a multiple of 16); the caller does the rest.
size_t shuffle8_sse2(const unsigned char* in, unsigned char* out, size_t elements) {
  auto transpose8 = [](const unsigned char* p, __m128i planes[4]) {
    auto row = [p](int e) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8 * e)); };
    const __m128i t0 = _mm_unpacklo_epi8(row(0), row(1));
    const __m128i t1 = _mm_unpacklo_epi8(row(2), row(3));
    const __m128i t2 = _mm_unpacklo_epi8(row(4), row(5));
    const __m128i t3 = _mm_unpacklo_epi8(row(6), row(7));
    const __m128i u0 = _mm_unpacklo_epi16(t0, t1);
    const __m128i u1 = _mm_unpackhi_epi16(t0, t1);
    const __m128i u2 = _mm_unpacklo_epi16(t2, t3);
    const __m128i u3 = _mm_unpackhi_epi16(t2, t3);
    planes[0] = _mm_unpacklo_epi32(u0, u2);  // byte planes 0 | 1 of the 8 elements
    planes[1] = _mm_unpackhi_epi32(u0, u2);  // 2 | 3
    planes[2] = _mm_unpacklo_epi32(u1, u3);  // 4 | 5
    planes[3] = _mm_unpackhi_epi32(u1, u3);  // 6 | 7
  };
  const size_t whole = elements / 16 * 16;
  for (size_t e = 0; e < whole; e += 16) {
    __m128i a[4], b[4];
    transpose8(in + 8 * e, a);
    transpose8(in + 8 * (e + 8), b);
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (2 * k) * elements + e),
                       _mm_unpacklo_epi64(a[k], b[k]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (2 * k + 1) * elements + e),
                       _mm_unpackhi_epi64(a[k], b[k]));
    }
  }
  return whole;
}
#endif

// The shuffle of in[0, n) into out[0, n) (shuffle_moves(n, width) is true).
void shuffle_into(const unsigned char* in, unsigned char* out, size_t n, size_t width) {
  const size_t elements = n / width;
  if (width == 8) {
    size_t done = 0;
#ifdef __SSE2__
    done = shuffle8_sse2(in, out, elements);
#endif
    for (size_t b = 0; b < 8; ++b)
      for (size_t e = done; e < elements; ++e) out[b * elements + e] = in[e * 8 + b];
  } else {
    shuffle_blocked(in, out, elements, width);
  }
  const size_t whole = elements * width;
  std::memcpy(out + whole, in + whole, n - whole);
}

// One zlib stream state per thread, reset between chunks: the same bytes as compress2 (which is
// deflateInit at the level, one deflate to the end, deflateEnd), without allocating and clearing
// the compressor's ~256 KiB of tables for every chunk. With `rle`, zlib's run-length strategy
// (deflateInit2 with Z_RLE, the default window and memory level): matches of distance one only.
class ThreadDeflater {
 public:
  ~ThreadDeflater() {
    if (level_ >= 0) deflateEnd(&z_);
  }
  // Deflates `in` at `level` into `out` (grown to the bound when smaller; never shrunk, so
  // the next chunk writes into memory already there); the compressed size, or 0 when zlib fails.
  size_t deflate_all(const unsigned char* in, size_t n, int level, bool rle,
                     std::vector<unsigned char>& out) {
    if (level_ != level || rle_ != rle) {
      if (level_ >= 0) deflateEnd(&z_);
      level_ = -1;
      z_ = z_stream{};
      const int ok =
          rle ? deflateInit2(&z_, level, Z_DEFLATED, MAX_WBITS, 8, Z_RLE) : deflateInit(&z_, level);
      if (ok != Z_OK) return 0;
      level_ = level;
      rle_ = rle;
    } else if (deflateReset(&z_) != Z_OK) {
      return 0;
    }
    const uLong bound = deflateBound(&z_, static_cast<uLong>(n));
    if (out.size() < bound) out.resize(bound);
    z_.next_in = const_cast<Bytef*>(in);
    z_.avail_in = static_cast<uInt>(n);
    z_.next_out = out.data();
    z_.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z_, Z_FINISH) != Z_STREAM_END) return 0;
    return z_.total_out;
  }

 private:
  z_stream z_{};
  int level_ = -1;
  bool rle_ = false;
};

// HDF5's deflate filter: in[0, n) as one zlib stream at `level`, compressed into a buffer of this
// thread's and copied out at its size (a chunk compresses to a fraction of its bound).
std::vector<unsigned char> deflated(const unsigned char* in, size_t n, int level, bool rle) {
  thread_local ThreadDeflater deflater;
  thread_local std::vector<unsigned char> scratch;  // never shrunk: no clearing per chunk
  const size_t size =
      n > std::numeric_limits<uInt>::max() ? 0 : deflater.deflate_all(in, n, level, rle, scratch);
  if (size == 0) throw std::runtime_error("zlib could not compress an HDF5 chunk");
  return std::vector<unsigned char>(scratch.begin(), scratch.begin() + static_cast<long>(size));
}

}  // namespace

namespace {

size_t longest_string(const Column& c) {
  size_t width = 1;  // HDF5 types have a size >= 1
  for (const auto& s : c.encoded ? c.dict : c.strings) width = std::max(width, s.size());
  return width;
}

}  // namespace

bool hdf5_variable_strings(const Column& c) {
  if (c.type != ColumnType::kString) return false;
  const size_t longest = longest_string(c);
  if (longest <= 1024) return false;
  const size_t rows = c.size();
  size_t bytes = 0;
  for (size_t i = 0; i < rows; ++i) bytes += c.str(i).size() + 1;
  return hdf5_variable_strings(longest, bytes, rows);
}

bool hdf5_variable_strings(size_t longest, size_t bytes, size_t rows) {
  return longest > 1024 && static_cast<double>(rows) * static_cast<double>(longest) >
                               16.0 * static_cast<double>(bytes);
}

size_t hdf5_element_size(const Column& c) {
  if (c.type != ColumnType::kString) return 8;
  if (hdf5_variable_strings(c)) return kVariableStringBytes;
  return longest_string(c);
}

size_t hdf5_chunk_rows(size_t rows, size_t max_rows, size_t element_size) {
  return std::max<size_t>(1, std::min({rows, max_rows, kChunkBytes / element_size}));
}

std::vector<unsigned char> filter_chunk(std::vector<unsigned char> raw, size_t element_size,
                                        bool shuffle, int deflate_level, DeflateStrategy strategy) {
  const bool rle = strategy == DeflateStrategy::kRunLength;
  const bool moves = shuffle && shuffle_moves(raw.size(), element_size);
  if (deflate_level <= 0) {
    if (!moves) return raw;
    std::vector<unsigned char> out(raw.size());
    shuffle_into(raw.data(), out.data(), raw.size(), element_size);
    return out;
  }
  if (!moves) return deflated(raw.data(), raw.size(), std::min(deflate_level, 9), rle);
  // Shuffled into a buffer of this thread's (never shrunk, never cleared) and deflated from it.
  thread_local std::vector<unsigned char> shuffled;
  if (shuffled.size() < raw.size()) shuffled.resize(raw.size());
  shuffle_into(raw.data(), shuffled.data(), raw.size(), element_size);
  return deflated(shuffled.data(), raw.size(), std::min(deflate_level, 9), rle);
}

Hdf5Chunks filter_table_chunks(const Table& t, size_t max_chunk_rows, bool shuffle,
                               int deflate_level, int threads) {
  Hdf5Chunks out;
  out.shuffle = shuffle;
  out.deflate_level = std::min(deflate_level, 9);
  struct Job {
    size_t column, chunk;
  };
  std::vector<Job> jobs;
  for (size_t k = 0; k < t.columns.size(); ++k) {
    const Column& c = t.columns[k];
    Hdf5ColumnChunks cc;
    cc.element_size = hdf5_element_size(c);
    cc.chunk_rows = hdf5_chunk_rows(c.size(), max_chunk_rows, cc.element_size);
    if (!hdf5_variable_strings(c)) cc.chunks.resize((c.size() + cc.chunk_rows - 1) / cc.chunk_rows);
    for (size_t i = 0; i < cc.chunks.size(); ++i) jobs.push_back({k, i});
    out.columns.push_back(std::move(cc));
  }
  runtime::parallel_for(jobs.size(), threads, [&](size_t j) {
    const Column& c = t.columns[jobs[j].column];
    Hdf5ColumnChunks& cc = out.columns[jobs[j].column];
    cc.chunks[jobs[j].chunk] =
        filter_chunk(raw_chunk(c, jobs[j].chunk * cc.chunk_rows, cc.chunk_rows, cc.element_size),
                     cc.element_size, shuffle, out.deflate_level);
  });
  return out;
}

}  // namespace cs::io
