#pragma once
// Bytes parked on disk instead of in memory: an unnamed temporary file (removed by the system when
// the process ends, however it ends) that blocks are appended to and read back from with pread
// into the caller's buffer. Not mapped: the page cache holding the blocks does not count toward
// the process's resident set. Thread-safe: appends are serialized, reads run concurrently.
//
//   auto spill = SpillFile::create();          // in $TMPDIR, else /tmp
//   SpillFile::Block b = spill->append(p, n);  // {offset, size}
//   std::vector<char> buf; spill->read(b, buf);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cs::runtime {

class SpillFile {
 public:
  // Where one appended block lives in the file.
  struct Block {
    uint64_t offset = 0;
    uint64_t size = 0;
  };

  // A new unnamed file in `dir` ($TMPDIR when empty, else /tmp). Throws std::runtime_error naming
  // the directory and the system's reason when it cannot be created.
  static std::shared_ptr<SpillFile> create(const std::string& dir = {});
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends n bytes; throws std::runtime_error (with the directory and errno's text: a full disk,
  // say) when they cannot all be written.
  Block append(const char* p, size_t n);
  // Reads block b into `out` (resized to b.size). Throws std::runtime_error on a short read.
  void read(const Block& b, std::vector<char>& out) const;
  // Reads block b into out[0, b.size), growing `out` only when it is smaller (never shrunk: a
  // buffer reused block after block is neither allocated nor cleared again). Throws like read.
  void read_into(const Block& b, std::vector<char>& out) const;
  // Reads block b into dst[0, b.size) (the caller's memory, b.size bytes). Throws like read.
  void read_to(const Block& b, char* dst) const;
  // Bytes appended so far.
  uint64_t size() const;

 private:
  SpillFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  int fd_ = -1;
  std::string dir_;
  mutable std::mutex mu_;
  uint64_t end_ = 0;
};

}  // namespace cs::runtime
