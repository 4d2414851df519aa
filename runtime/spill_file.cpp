#include "runtime/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace cs::runtime {

namespace {

std::string reason(const std::string& dir, const char* what) {
  return std::string(what) + " the spill file in " + dir + ": " + std::strerror(errno) +
         " \u2014 free space there or set TMPDIR to a directory with room";
}

}  // namespace

std::shared_ptr<SpillFile> SpillFile::create(const std::string& dir_in) {
  std::string dir = dir_in;
  if (dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    dir = t && *t ? t : "/tmp";
  }
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {  // a file system without O_TMPFILE: a named file, removed at once
    std::string path = dir + "/clusterscope-spill-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(reason(dir, "cannot create"));
    ::unlink(path.c_str());
  }
  return std::shared_ptr<SpillFile>(new SpillFile(fd, dir));
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

SpillFile::Block SpillFile::append(const char* p, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  const Block b{end_, n};
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::pwrite(fd_, p + done, n - done, static_cast<off_t>(end_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(reason(dir_, "cannot write to"));
    done += static_cast<size_t>(w);
  }
  end_ += n;
  return b;
}

void SpillFile::read(const Block& b, std::vector<char>& out) const {
  out.resize(b.size);
  read_into(b, out);
}

void SpillFile::read_into(const Block& b, std::vector<char>& out) const {
  if (out.size() < b.size) out.resize(b.size);
  read_to(b, out.data());
}

void SpillFile::read_to(const Block& b, char* dst) const {
  size_t done = 0;
  while (done < b.size) {
    const ssize_t r = ::pread(fd_, dst + done, b.size - done, static_cast<off_t>(b.offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw std::runtime_error(reason(dir_, "cannot read back"));
    done += static_cast<size_t>(r);
  }
}

uint64_t SpillFile::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return end_;
}

}  // namespace cs::runtime
