#pragma once
// Bytes in pages of their own (mmap), given back to the kernel the moment the buffer is freed.
// For many medium-sized buffers that are freed while other memory grows: malloc keeps freed
// blocks for reuse by the thread arena that allocated them, so memory freed on one thread does
// not lower the peak of another thread's allocations.
//
//   io::PageBuffer b(bytes.data(), bytes.size());  b.data(), b.size();  // freed with b

#include <cstddef>

namespace cs::runtime {

class PageBuffer {
 public:
  PageBuffer() = default;
  // A copy of n bytes at p (nothing mapped when n is 0). When mmap fails (the process's limit of
  // mappings, say) the bytes go to the heap instead.
  PageBuffer(const char* p, size_t n);
  PageBuffer(const PageBuffer& o) : PageBuffer(o.p_, o.n_) {}
  PageBuffer& operator=(const PageBuffer& o);
  PageBuffer(PageBuffer&& o) noexcept : p_(o.p_), n_(o.n_), mapped_(o.mapped_) {
    o.p_ = nullptr, o.n_ = 0;
  }
  PageBuffer& operator=(PageBuffer&& o) noexcept;
  ~PageBuffer() { release(); }

  const char* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Unmaps the pages; the buffer is empty afterwards.
  void release() noexcept;

 private:
  char* p_ = nullptr;
  size_t n_ = 0;
  bool mapped_ = false;  // else new[]
};

}  // namespace cs::runtime
