#include "frame/text_pool.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace cs::frame {

namespace {

// One of the pool's shards: its texts in a deque (their addresses never move) and an
// open-addressing table of them keyed by their hash (kept, so growing never hashes again).
// A text's shard follows from its hash, so threads interning different texts rarely share a
// lock, and a text is looked up once (no per-thread copy of the index).
struct Shard {
  struct Slot {
    uint64_t hash = 0;
    const std::string* text = nullptr;  // nullptr: empty
  };
  std::mutex mutex;
  std::deque<std::string> texts;
  std::vector<Slot> slots = std::vector<Slot>(64);
  size_t used = 0;

  // The shard's copy of `text` (hash `h`), stored on first use. Called with the lock held.
  const std::string* find_or_add(std::string_view text, uint64_t h) {
    size_t mask = slots.size() - 1;
    size_t pos = (h >> 6) & mask;  // the low bits chose the shard
    for (; slots[pos].text; pos = (pos + 1) & mask)
      if (slots[pos].hash == h && *slots[pos].text == text) return slots[pos].text;
    const std::string* s = &texts.emplace_back(text);
    slots[pos] = Slot{h, s};
    if (++used * 2 > slots.size()) grow();  // at most half full
    return s;
  }

  void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    const size_t mask = slots.size() - 1;
    for (const Slot& s : old) {
      if (!s.text) continue;
      size_t pos = (s.hash >> 6) & mask;
      while (slots[pos].text) pos = (pos + 1) & mask;
      slots[pos] = s;
    }
  }
};

constexpr size_t kShards = 64;

std::array<Shard, kShards>& shards() {
  // Never destroyed: cells in static storage may point into it until exit.
  static auto* s = new std::array<Shard, kShards>;
  return *s;
}

// intern_text with the text's hash computed.
const std::string* intern_hashed(std::string_view text, uint64_t h) {
  Shard& shard = shards()[h & (kShards - 1)];
  std::lock_guard<std::mutex> lock(shard.mutex);
  return shard.find_or_add(text, h);
}

}  // namespace

const std::string* intern_text(std::string_view text) {
  return intern_hashed(text, std::hash<std::string_view>{}(text));
}

void release_text_pool() {
  for (Shard& shard : shards()) {
    std::lock_guard<std::mutex> lock(shard.mutex);
    std::deque<std::string>().swap(shard.texts);
    std::vector<Shard::Slot>(64).swap(shard.slots);
    shard.used = 0;
  }
}

size_t text_pool_size() {
  size_t n = 0;
  for (Shard& shard : shards()) {
    std::lock_guard<std::mutex> lock(shard.mutex);
    n += shard.used;
  }
  return n;
}

const std::string* TextCache::intern(std::string_view text) {
  const uint64_t h = std::hash<std::string_view>{}(text);
  const std::string*& slot = slots_[(h >> 16) % slots_.size()];
  if (!slot || *slot != text) slot = intern_hashed(text, h);
  return slot;
}

}  // namespace cs::frame
