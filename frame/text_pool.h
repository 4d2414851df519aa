#pragma once
// The texts of the recipes' text cells: each distinct text is stored once for the whole run
// (never freed), so a text cell is a pointer to it, equal texts are equal pointers and copying a
// cell copies 16 bytes. Thread-safe (the ranks are read on several threads): the pool is split in
// shards by the text's hash, each under its own lock, so threads seldom wait for each other.
//
//   const std::string* a = intern_text("hcom_allReduce");
//   a == intern_text(std::string("hcom_allReduce"));  // true

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace cs::frame {

// The run's one copy of `text` (stored on first use; the pointer stays valid until exit).
const std::string* intern_text(std::string_view text);

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
