#include "msprof/msprof_file.h"

#include <cerrno>
#include <cstring>

namespace cs::cluster {

bool write_output_file(const std::string& path, io::Diagnostics& diag,
                       const std::function<bool(std::FILE*)>& body) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    diag.error(path, 0, std::string("cannot create file: ") + std::strerror(errno),
               "check that the output directory exists and is writable");
    return false;
  }
  bool ok = body(f);
  if (std::ferror(f)) ok = false;
  if (std::fclose(f) != 0) ok = false;
  if (!ok)
    diag.error(path, 0, "writing the file failed (disk full?)",
               "free space on the output file system and run again");
  return ok;
}

}  // namespace cs::cluster
