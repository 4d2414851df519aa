#include "runtime/page_buffer.h"

#include <sys/mman.h>

#include <cstring>
#include <utility>

namespace cs::runtime {

PageBuffer::PageBuffer(const char* p, size_t n) {
  if (n == 0) return;
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mapped_ = m != MAP_FAILED;
  p_ = mapped_ ? static_cast<char*>(m) : new char[n];
  std::memcpy(p_, p, n);
  n_ = n;
}

PageBuffer& PageBuffer::operator=(const PageBuffer& o) {
  if (this != &o) *this = PageBuffer(o);
  return *this;
}

PageBuffer& PageBuffer::operator=(PageBuffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    mapped_ = o.mapped_;
  }
  return *this;
}

void PageBuffer::release() noexcept {
  if (p_ && mapped_) {
    munmap(p_, n_);
  } else {
    delete[] p_;
  }
  p_ = nullptr;
  n_ = 0;
}

}  // namespace cs::runtime
