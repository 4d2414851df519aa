#include "io/sqlite/pending_sidecar.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs::io::sqlite {

std::string pending_sidecar(const std::string& path) {
  struct stat st {};
  std::string wal = path + "-wal";
  if (::stat(wal.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) return wal;
  std::string journal = path + "-journal";
  if (::stat(journal.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return {};
  const int fd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return journal;  // there but unreadable: SQLite would not ignore it either
  unsigned char first = 0;
  const bool hot = ::pread(fd, &first, 1, 0) != 1 || first != 0;
  ::close(fd);
  return hot ? journal : std::string();
}

}  // namespace cs::io::sqlite
