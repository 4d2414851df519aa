#pragma once
// Interned strings of the trace readers (readers/kineto_trace.h): event names repeat hundreds of
// thousands of times in a trace, so each distinct string is stored once and events keep its id.
//
//   StringPool pool;
//   uint32_t a = pool.intern("aten::mm"), b = pool.intern("aten::mm");  // a == b
//   pool.str(a) == "aten::mm"; pool.find("aten::add") == kNoString

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io {

constexpr uint32_t kNoString = 0xffffffffu;

// A 64-bit hash of bytes (multiply-mix, 16 bytes per step): fast on the long kernel names of GPU
// traces. Not for security. Example: hash_bytes("abc", 3) == hash_bytes("abc", 3).
uint64_t hash_bytes(const char* p, size_t n);

// Interned strings. Ids are dense from 0, in order of first intern().
class StringPool {
 public:
  StringPool() = default;
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // The id of `s`, adding it when new. Example: intern("aten::mm") twice -> the same id.
  uint32_t intern(std::string_view s);
  // The id of `s`, or kNoString when it was never interned.
  uint32_t find(std::string_view s) const;
  // The string of an id; "" for kNoString.
  std::string_view str(uint32_t id) const {
    return id == kNoString ? std::string_view() : views_[id];
  }
  size_t size() const { return views_.size(); }

 private:
  // An open-addressing slot: the high half of the hash (checked before the bytes) and the id.
  struct Slot {
    uint32_t tag = 0;
    uint32_t id = kNoString;
  };
  // The slot holding `s` (hash h), or the empty slot where it belongs.
  size_t probe(std::string_view s, uint64_t h) const;
  void grow();

  std::deque<std::string> strings_;      // owns the bytes; a deque never moves its elements
  std::vector<std::string_view> views_;  // id -> strings_[id]
  std::vector<Slot> slots_;              // power-of-two size, at most half full
};

}  // namespace cs::io
