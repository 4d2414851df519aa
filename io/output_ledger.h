#pragma once
// The ledger of what a run wrote: a process-wide record of this run's outputs (started, written,
// failed) and, for a run that owns an output directory, the list file OUT/.clusterscope_written.
// A name is added to that file before its .tmp is created, so even after `kill -9` the next run
// knows every file the last one wrote or began. At the start of a run the files it lists (and
// their .tmp, and stale "*.{csv,json,h5,html,db}.tmp" leftovers) are removed: a directory never
// holds a silent mix of new and old results. Files the user made (not listed) are never touched.
//
//   auto removed = io::OutputLedger::instance().begin("OUT/cluster_analysis_output", diag);
//   ... writers call started()/written()/failed() through io/output_file.h ...
//   for (auto& f : io::OutputLedger::instance().failed_files()) ...

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "io/diagnostics.h"

namespace cs::io {

// The ledger's file name inside the output directory.
inline constexpr const char* kLedgerFileName = ".clusterscope_written";

class OutputLedger {
 public:
  // The one ledger of this process.
  static OutputLedger& instance();

  // Starts a run that owns `dir`: removes the outputs listed by the previous run's ledger, their
  // .tmp files and stale .tmp leftovers of ours, then starts a new, empty ledger file. Returns
  // the names removed (relative to `dir`); problems (a file that cannot be removed) go to diag.
  std::vector<std::string> begin(const std::string& dir, Diagnostics& diag);
  // Starts a run that adds to `dir` (a recipe run: msprof-analyze's recipes extend the outputs
  // already there): nothing listed is removed, the existing list is kept and this run's outputs
  // are added to it; stale .tmp leftovers of ours are removed. Problems go to diag.
  void extend(const std::string& dir, Diagnostics& diag);
  // The run completed: rewrites the ledger file as the sorted list of the files it names, so it
  // reads the same whatever order the outputs were written in.
  void finish();
  // Forgets the directory and every record (tests; a process runs one command).
  void reset();

  // `path` is about to be written (its .tmp created): listed in the ledger file when it lies
  // below the run's directory.
  void started(const std::string& path);
  // started(path), then creates (truncates) "<path>.tmp" for writing, under the ledger's lock so
  // that remove_temporaries() never misses it. nullptr (errno set; EINTR once the run was
  // interrupted) when it cannot.
  std::FILE* open_temporary(const std::string& path);
  // `path` is complete under its final name.
  void written(const std::string& path);
  // Writing `path` failed; nothing is under its final name.
  void failed(const std::string& path);

  // Removes every .tmp of a file started and neither written nor failed (an interrupted run);
  // no .tmp is created afterwards. Returns how many were removed.
  size_t remove_temporaries();

  std::vector<std::string> written_files() const;
  std::vector<std::string> failed_files() const;

  // An interrupted run: remove_temporaries(), then (when `print`) one line "clusterscope:
  // interrupted (SIGINT) — partial files removed; complete before the interrupt: a.csv, b.json
  // (in DIR)", stdout and stderr flushed. The caller exits.
  void interrupted(const std::string& signal_name, const std::string& dir, bool print);

 private:
  OutputLedger() = default;
  std::string relative_to_dir(const std::string& path) const;  // "" when outside dir_
  void started_locked(const std::string& path);

  mutable std::mutex mu_;
  std::string dir_;               // the run's directory ("" when none)
  std::set<std::string> listed_;  // names already in the ledger file
  std::set<std::string> open_;    // started, not finished (full paths)
  std::vector<std::string> written_, failed_;
  bool closed_ = false;  // remove_temporaries() ran: no more .tmp files
};

// "a.csv, b/c.csv and 3 more": `paths` relative to `dir`, at most `max` named.
std::string output_name_list(const std::vector<std::string>& paths, const std::string& dir,
                             size_t max = 8);

}  // namespace cs::io
