#include "io/output_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/output_ledger.h"

namespace cs::io {

std::string temporary_name(const std::string& path) {
  return path + ".tmp";
}

std::string output_errno_hint(int err) {
  switch (err) {
    case ENOENT:
      return "the output directory does not exist; create it or choose another with -o";
    case EACCES:
    case EPERM:
    case EROFS:
      return "the output directory is not writable; choose another with -o";
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return "the disk is full or over quota; free space or choose another output with -o";
    default:
      return "check the output path and free disk space, or choose another output with -o";
  }
}

OutputFile::~OutputFile() {
  abandon();
}

bool OutputFile::open(const std::string& path, Diagnostics& diag) {
  abandon();
  path_ = path;
  err_ = 0;
  file_ = OutputLedger::instance().open_temporary(path_);
  if (!file_) {
    const int err = errno;
    OutputLedger::instance().failed(path_);
    diag.error(path_, 0, std::string("cannot create file: ") + std::strerror(err),
               output_errno_hint(err));
    return false;
  }
  return true;
}

void OutputFile::fail(int err) {
  if (err_ == 0) err_ = err ? err : EIO;
}

void OutputFile::abandon() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(temporary_name(path_).c_str());
  OutputLedger::instance().failed(path_);
}

bool OutputFile::commit(Diagnostics& diag) {
  if (!file_) {
    diag.error(path_, 0, "output file committed without being open",
               "this is a bug in clusterscope, please report it");
    return false;
  }
  const std::string tmp = temporary_name(path_);
  int err = err_;
  if (err == 0 && std::ferror(file_)) err = errno ? errno : EIO;
  if (std::fflush(file_) != 0 && err == 0) err = errno ? errno : EIO;
  if (std::fclose(file_) != 0 && err == 0) err = errno ? errno : EIO;
  file_ = nullptr;
  if (err != 0) {
    std::remove(tmp.c_str());
    OutputLedger::instance().failed(path_);
    diag.error(path_, 0, std::string("cannot write file: ") + std::strerror(err),
               output_errno_hint(err));
    return false;
  }
  return publish_output(tmp, path_, diag);
}

bool write_output_file(const std::string& path, Diagnostics& diag,
                       const std::function<bool(std::FILE*)>& body) {
  OutputFile out;
  if (!out.open(path, diag)) return false;
  errno = 0;
  if (!body(out.get())) out.fail(errno);
  return out.commit(diag);
}

bool write_output_text(const std::string& path, std::string_view content, Diagnostics& diag) {
  return write_output_file(path, diag, [&](std::FILE* f) {
    return std::fwrite(content.data(), 1, content.size(), f) == content.size();
  });
}

bool publish_output(const std::string& tmp, const std::string& path, Diagnostics& diag) {
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();  // before remove_all reuses ec
    std::filesystem::remove_all(tmp, ec);
    OutputLedger::instance().failed(path);
    diag.error(path, 0, "cannot rename " + tmp + " to the final name: " + why,
               "check that the output directory is writable and that no other run writes to it");
    return false;
  }
  OutputLedger::instance().written(path);
  return true;
}

}  // namespace cs::io
