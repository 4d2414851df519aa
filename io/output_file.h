#pragma once
// One final output file, written so that no reader ever sees it incomplete: the bytes go to
// "<path>.tmp" in the same directory, and only a complete file (every write, the flush and the
// close checked) is renamed to `path`. On any failure the .tmp is removed and one error names
// `path` and the errno text. Every writer of a final output (msprof-analyze documents, CSV
// tables, report.html, recipe CSVs) goes through here; HDF5 and SQLite files, which their
// libraries write, follow the same .tmp + rename rule and report to io/output_ledger.h.
//
//   io::OutputFile out;
//   if (!out.open("OUT/x.json", diag)) return false;
//   std::fputs("{}", out.get());
//   return out.commit(diag);  // x.json appears only now; without commit() the .tmp is removed

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "io/diagnostics.h"

namespace cs::io {

// "<path>.tmp": where an output is written before it is complete.
std::string temporary_name(const std::string& path);

// What to do about a write to an output that failed with `err` (disk full, permission, ...).
std::string output_errno_hint(int err);

class OutputFile {
 public:
  OutputFile() = default;
  // Removes the .tmp when neither committed nor abandoned.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Creates (truncates) "<path>.tmp". False with one error naming `path` when it cannot.
  bool open(const std::string& path, Diagnostics& diag);
  // The open .tmp (buffered); nullptr when not open.
  std::FILE* get() const { return file_; }
  // Notes a failed write that the stream's error flag does not show (e.g. a short fwrite the
  // caller detected). `err` is the errno of the failure.
  void fail(int err);
  // Flushes, closes and renames the .tmp to the final name. False (the .tmp removed, nothing
  // under the final name, one error naming it with the errno text) when any step failed.
  bool commit(Diagnostics& diag);
  // Closes and removes the .tmp without an error (the caller reports why).
  void abandon();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  int err_ = 0;  // first write error seen
};

// Writes `path` through its .tmp: body(file) writes, returning false on a failed write (errno
// set). True only when the file is complete under its final name.
bool write_output_file(const std::string& path, Diagnostics& diag,
                       const std::function<bool(std::FILE*)>& body);

// write_output_file() of one block of bytes.
bool write_output_text(const std::string& path, std::string_view content, Diagnostics& diag);

// Renames `tmp` (a file or directory a library wrote) to `path`, replacing an old `path`, and
// reports the outcome to the output ledger. False with one error naming `path` when it fails.
bool publish_output(const std::string& tmp, const std::string& path, Diagnostics& diag);

}  // namespace cs::io
