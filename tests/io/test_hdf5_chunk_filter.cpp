// filter_chunk (io/hdf5/hdf5_chunks.h) against HDF5's filters as their documentation defines
// them, written here the plain way: the shuffle filter puts byte k of every element together
// (k = 0, 1, ...) and leaves the bytes past the last whole element at the end; the deflate filter
// is zlib's compress2 at the level. filter_chunk takes the elements a block at a time and keeps
// one zlib stream per thread, reset between chunks: the bytes must be the same for every element
// width, for chunks one after another on one thread and after a change of level. The streamed
// tables' run-length strategy (DeflateStrategy::kRunLength) is zlib's Z_RLE stream, which inflate
// turns back into the shuffled chunk.

#include <zlib.h>

#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "io/hdf5/hdf5_chunks.h"

namespace cs::io {
namespace {

std::vector<unsigned char> plain_shuffle(const std::vector<unsigned char>& in, size_t width) {
  const size_t elements = in.size() / width;
  if (width <= 1 || elements <= 1) return in;
  std::vector<unsigned char> out;
  for (size_t b = 0; b < width; ++b)
    for (size_t e = 0; e < elements; ++e) out.push_back(in[e * width + b]);
  for (size_t i = elements * width; i < in.size(); ++i) out.push_back(in[i]);
  return out;
}

// zlib's own Z_RLE stream of `in`: deflateInit2 at the level, default window and memory level.
std::vector<unsigned char> rle_deflate(const std::vector<unsigned char>& in, int level) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, MAX_WBITS, 8, Z_RLE), Z_OK);
  std::vector<unsigned char> out(deflateBound(&z, static_cast<uLong>(in.size())));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::vector<unsigned char> inflated(const std::vector<unsigned char>& in, size_t size) {
  std::vector<unsigned char> out(size + 1);
  uLongf n = static_cast<uLongf>(out.size());
  EXPECT_EQ(uncompress(out.data(), &n, in.data(), static_cast<uLong>(in.size())), Z_OK);
  out.resize(n);
  return out;
}

std::vector<unsigned char> plain_deflate(const std::vector<unsigned char>& in, int level) {
  uLongf size = compressBound(static_cast<uLong>(in.size()));
  std::vector<unsigned char> out(size);
  EXPECT_EQ(compress2(out.data(), &size, in.data(), static_cast<uLong>(in.size()), level), Z_OK);
  out.resize(size);
  return out;
}

// Bytes like a table's: runs of small numbers and repeated text, with some noise.
std::vector<unsigned char> table_like_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (rng() % 4 == 0) ? static_cast<unsigned char>(rng()) : static_cast<unsigned char>(i % 7);
  return v;
}

TEST(Hdf5ChunkFilter, ShuffleIsHdf5sForEveryWidth) {
  for (size_t width : {1, 2, 3, 4, 7, 8, 9, 16, 17, 100, 257, 4000}) {
    for (size_t elements : {0, 1, 2, 5, 63, 64, 65, 1000, 5000}) {
      for (size_t extra : {size_t{0}, width > 1 ? width - 1 : 0}) {
        const auto raw = table_like_bytes(width * elements + extra,
                                          static_cast<uint32_t>(width * 131 + elements));
        EXPECT_EQ(filter_chunk(raw, width, true, 0), plain_shuffle(raw, width))
            << "width " << width << ", elements " << elements << ", extra bytes " << extra;
      }
    }
  }
}

TEST(Hdf5ChunkFilter, DeflateIsCompress2ChunkAfterChunkAndAcrossLevels) {
  // One thread, many chunks of different sizes and levels: each is compress2's stream.
  const int levels[] = {1, 1, 6, 6, 1, 9, 1};
  size_t n = 0;
  for (int level : levels) {
    for (size_t width : {8, 33}) {
      n = n * 3 + 1000;  // 1000 bytes up to a few MB
      const auto raw = table_like_bytes(n % (3 << 20), static_cast<uint32_t>(n));
      EXPECT_EQ(filter_chunk(raw, width, true, level),
                plain_deflate(plain_shuffle(raw, width), level))
          << "level " << level << ", " << raw.size() << " bytes";
      EXPECT_EQ(filter_chunk(raw, width, false, level), plain_deflate(raw, level));
    }
  }
  // An empty chunk is still a zlib stream.
  EXPECT_EQ(filter_chunk({}, 8, true, 1), plain_deflate({}, 1));
}

TEST(Hdf5ChunkFilter, RunLengthIsZlibsRleStreamAndInflatesBack) {
  // Chunk after chunk on one thread, switching strategy and level between them: each chunk is
  // the stream zlib makes alone, and a reader's inflate gives the shuffled chunk back.
  using S = DeflateStrategy;
  const S strategies[] = {S::kRunLength, S::kLikeHdf5, S::kRunLength, S::kRunLength, S::kLikeHdf5};
  size_t n = 0;
  int level = 1;
  for (S strategy : strategies) {
    for (size_t width : {8, 21}) {
      n = n * 3 + 777;
      const auto raw = table_like_bytes(n % (2 << 20), static_cast<uint32_t>(n));
      const auto shuffled = plain_shuffle(raw, width);
      const auto got = filter_chunk(raw, width, true, level, strategy);
      EXPECT_EQ(got, strategy == S::kRunLength ? rle_deflate(shuffled, level)
                                               : plain_deflate(shuffled, level))
          << raw.size() << " bytes, width " << width;
      EXPECT_EQ(inflated(got, raw.size()), shuffled);
    }
    level = level == 1 ? 6 : 1;
  }
  // Zero-padded text (a string column's chunk) round-trips too.
  std::vector<unsigned char> text(1 << 20, 0);
  for (size_t i = 0; i < text.size(); i += 40)
    text[i] = text[i + 1] = static_cast<unsigned char>('a' + i % 3);
  EXPECT_EQ(inflated(filter_chunk(text, 40, true, 1, S::kRunLength), text.size()),
            plain_shuffle(text, 40));
}

}  // namespace
}  // namespace cs::io
