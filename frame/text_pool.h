#pragma once
// The texts of the recipes' text cells: each distinct text is stored once for the whole run
// (freed only by release_text_pool), so a text cell is a pointer to it, equal texts are equal
// pointers and copying a cell copies 16 bytes. Thread-safe (the ranks are read on several threads):
// the pool is split in shards by the text's hash, each under its own lock, so threads seldom wait
// for each other.
//
//   const std::string* a = intern_text("hcom_allReduce");
//   a == intern_text(std::string("hcom_allReduce"));  // true

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cs::frame {

// The run's one copy of `text` (stored on first use; the pointer stays valid until exit).
const std::string* intern_text(std::string_view text);

// Empties the pool and gives its memory back: for the end of a body of recipe work after which
// no cell, frame or pointer intern_text() returned is used again (`cluster` calls it when the
// verdict recipes are done: at 16,384 DB ranks their texts were 17 MB held through the main
// run). Texts interned later are stored anew. Not concurrent with intern_text().
void release_text_pool();
// The number of distinct texts the pool holds (for tests and measurements).
size_t text_pool_size();

// A small cache in front of the pool for one thread's stream of texts that repeat (a result
// column): a text it holds costs a hash and a comparison, no lock. Not thread-safe.
class TextCache {
 public:
  // The same as intern_text(text).
  const std::string* intern(std::string_view text);

 private:
  std::array<const std::string*, 128> slots_{};
};

}  // namespace cs::frame
