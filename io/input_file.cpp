#include "io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cs::io {

namespace {

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// What a file that is not a regular one is, for "is a FIFO, not a regular file".
const char* file_type_text(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string errno_text(int err) {
  switch (err) {
    case ENOENT:
      return "file not found";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ELOOP:
      return "a symlink loop (too many levels of symbolic links)";
    case ENOTDIR:
      return "a part of the path is not a directory";
    case EISDIR:
      return "is a directory";
    case ENAMETOOLONG:
      return "the path is too long";
    case EMFILE:
    case ENFILE:
      return "too many open files";
    case EIO:
      return "input/output error (the disk or network file system failed)";
    default:
      return std::strerror(err);
  }
}

std::string errno_hint(int err) {
  switch (err) {
    case ENOENT:
      return "check the path: the file may not have been written";
    case EACCES:
    case EPERM:
      return "check the file's and its directories' permissions for the user running "
             "clusterscope";
    case ELOOP:
      return "a symbolic link points back at itself; fix or remove the link";
    case EMFILE:
    case ENFILE:
      return "raise the open-file limit (ulimit -n) or run with fewer threads";
    default:
      return "check the path, the file and the file system";
  }
}

InputLimit input_limit_for(std::string_view path) {
  const std::string_view name = base_name(path);
  constexpr uint64_t kMB = 1000 * 1000, kGB = kMB * 1000;
  if (name.ends_with("communication.json")) return {"communication.json", 8 * kGB};
  if (name.ends_with("communication_matrix.json")) return {"communication_matrix.json", 8 * kGB};
  if (name.substr(0, 13) == "profiler_info") return {"profiler_info.json", 64 * kMB};
  if (name == "profiler_metadata.json") return {"profiler_metadata.json", 64 * kMB};
  if (name.ends_with(".csv")) return {"CSV file", UINT64_MAX};  // streamed: memory stays flat
  return {"JSON file", 32 * kGB};
}

std::string size_text(uint64_t bytes) {
  struct Unit {
    uint64_t size;
    const char* name;
  };
  for (const Unit u :
       {Unit{1000ull * 1000 * 1000, "GB"}, Unit{1000 * 1000, "MB"}, Unit{1000, "KB"}}) {
    if (bytes < u.size) continue;
    const double v = static_cast<double>(bytes) / static_cast<double>(u.size);
    char buf[48];
    if (bytes % u.size == 0)
      std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(bytes / u.size),
                    u.name);
    else
      std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, u.name);
    return buf;
  }
  return std::to_string(bytes) + " bytes";
}

int open_input_file(const std::string& path, Diagnostics& diag, uint64_t& size, bool allow_empty) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    diag.error(path, 0, "cannot open the file: " + errno_text(err), errno_hint(err));
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    diag.error(path, 0, "cannot read the file's size: " + errno_text(err), errno_hint(err));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    diag.error(path, 0, std::string("is ") + file_type_text(st.st_mode) + ", not a regular file",
               S_ISDIR(st.st_mode) ? "pass the file itself"
                                   : "pass the profiler's file; pipes and devices are not read");
    return -1;
  }
  size = static_cast<uint64_t>(st.st_size);
  if (size == 0 && !allow_empty) {
    ::close(fd);
    diag.error(path, 0, "the file is empty",
               "the profiler may have been stopped before it wrote this file; re-run the "
               "profiler's parse step to regenerate it");
    return -1;
  }
  const InputLimit limit = input_limit_for(path);
  if (size > limit.max_bytes) {
    ::close(fd);
    diag.error(path, 0,
               "too large for a " + limit.kind + " (" + size_text(size) + "; limit " +
                   size_text(limit.max_bytes) + ")",
               "check that this is the profiler's file and not a damaged or sparse one; a "
               "genuine one this large cannot be read whole");
    return -1;
  }
  // Back to blocking reads (a regular file never blocks, but be exact).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

bool sniff_json_head(int fd, const std::string& path, Diagnostics& diag) {
  unsigned char head[4096];
  ssize_t n = -1;
  do {
    n = ::pread(fd, head, sizeof head, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return true;  // the full read reports it
  size_t i = 0;
  const size_t len = static_cast<size_t>(n);
  if (len >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;  // gzip: its reader checks
  if (len >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3;
  while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i == len || head[i] == '{' || head[i] == '[') return true;
  const bool binary = head[i] < 0x20 || head[i] >= 0x80;
  diag.error(path, 0,
             std::string("not a JSON file: it does not begin with '{' or '[' (") +
                 (binary ? "binary data" : "text of another kind") + " at byte " +
                 std::to_string(i) + ")",
             "check that this is the profiler's JSON output and not a damaged, compressed or "
             "other file",
             static_cast<int64_t>(i));
  return false;
}

}  // namespace cs::io
