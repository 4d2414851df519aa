#include "recipes/frame/text_pool.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace cs::recipes {

namespace {

// The shared store: texts in a deque (their addresses never move), indexed by their views.
struct TextPool {
  std::mutex mutex;
  std::deque<std::string> texts;
  std::unordered_map<std::string_view, const std::string*> index;
};

TextPool& pool() {
  // Never destroyed: cells in static storage may point into it until exit.
  static TextPool* p = new TextPool;
  return *p;
}

}  // namespace

const std::string* intern_text(std::string_view text) {
  // Each thread remembers what it interned, so the lock is taken once per thread and text.
  thread_local std::unordered_map<std::string_view, const std::string*> seen;
  if (auto it = seen.find(text); it != seen.end()) return it->second;
  TextPool& p = pool();
  const std::string* s = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.index.find(text);
    if (it == p.index.end()) {
      s = &p.texts.emplace_back(text);
      p.index.emplace(std::string_view(*s), s);
    } else {
      s = it->second;
    }
  }
  seen.emplace(std::string_view(*s), s);
  return s;
}

}  // namespace cs::recipes
