#pragma once
// An optional value kept on the heap: while empty it costs one pointer, not the value's size. The
// root holds one RankData per rank for the whole run, and most ranks have no memory summary (a
// memory::RankMemory is over 300 bytes), so the empty case is what should be small.
//   HeapOptional<memory::RankMemory> m;  m = memory::read_memory_text(...);  if (m) use(*m);

#include <memory>
#include <optional>
#include <utility>

namespace cs::load {

template <class T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  // Holds `v`.
  HeapOptional& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  // Holds `v`'s value, or nothing when it has none.
  HeapOptional& operator=(std::optional<T> v) {
    if (v)
      p_ = std::make_unique<T>(std::move(*v));
    else
      p_.reset();
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace cs::load
