#include "io/string_pool.h"

#include <cstring>

namespace cs::io {

namespace {

inline uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// 64x64 -> 128-bit multiply, folded: every output bit depends on every input bit.
inline uint64_t mix(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kSeed0 = 0xa0761d6478bd642full;
constexpr uint64_t kSeed1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kSeed2 = 0x8ebc6af09c88c6e3ull;

}  // namespace

uint64_t hash_bytes(const char* p, size_t n) {
  uint64_t h = kSeed0 ^ (n * kSeed2);
  uint64_t a = 0, b = 0;
  if (n <= 16) {
    if (n >= 8) {
      a = load64(p);
      b = load64(p + n - 8);
    } else if (n >= 4) {
      a = load32(p);
      b = load32(p + n - 4);
    } else if (n > 0) {
      a = uint64_t(static_cast<unsigned char>(p[0])) << 16 |
          uint64_t(static_cast<unsigned char>(p[n >> 1])) << 8 |
          uint64_t(static_cast<unsigned char>(p[n - 1]));
    }
  } else {
    while (n > 16) {
      h = mix(load64(p) ^ kSeed1, load64(p + 8) ^ h);
      p += 16;
      n -= 16;
    }
    // The last 16 bytes (they may overlap the bytes of the last step).
    a = load64(p + n - 16);
    b = load64(p + n - 8);
  }
  return mix(kSeed1 ^ n, mix(a ^ kSeed1, b ^ h));
}

size_t StringPool::probe(std::string_view s, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNoString) return i;
    if (slot.tag == tag) {
      const std::string_view have = views_[slot.id];
      if (have == s) return i;
    }
  }
}

void StringPool::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.id == kNoString) continue;
    const std::string_view s = views_[slot.id];
    size_t i = hash_bytes(s.data(), s.size()) & mask;
    while (slots_[i].id != kNoString) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

uint32_t StringPool::intern(std::string_view s) {
  if ((views_.size() + 1) * 2 > slots_.size()) grow();
  const uint64_t h = hash_bytes(s.data(), s.size());
  Slot& slot = slots_[probe(s, h)];
  if (slot.id != kNoString) return slot.id;
  const auto id = static_cast<uint32_t>(views_.size());
  strings_.emplace_back(s);
  views_.emplace_back(strings_.back());
  slot = Slot{static_cast<uint32_t>(h >> 32), id};
  return id;
}

uint32_t StringPool::find(std::string_view s) const {
  if (slots_.empty()) return kNoString;
  return slots_[probe(s, hash_bytes(s.data(), s.size()))].id;
}

}  // namespace cs::io
