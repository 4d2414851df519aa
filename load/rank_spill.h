#pragma once
// A spill file for parsed ranks: each rank's communication ops, matrix, operator table, host
// summary and step trace are moved into it as the rank is parsed, so that what a process holds
// per rank is its RankData's small fields, whatever the job's size; the parts are read back
// through read()/edit() (load/rank_communication.h). Spilling only saves memory: when the file
// cannot be created or written (no room, a file size limit) the parts not yet in it stay packed
// in memory instead, and problem() says why, once.
//
//   RankSpill spill;  spill.open();
//   RankData d = parse_rank(...);  spill.park(d);       // on any thread
//   if (!spill.problem().empty()) warn(spill.problem());

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "load/rank_data.h"
#include "runtime/spill_file.h"

namespace cs::load {

class RankSpill {
 public:
  // Creates the file ($TMPDIR, else /tmp); when it cannot be, park() packs in memory.
  void open();
  // True while the file takes the ranks' parts.
  bool on() const { return on_; }
  // Moves d's ops, matrix, operator table, host summary and step trace into the file, or packs
  // them in memory once the file has failed. Thread-safe (each call its own rank).
  void park(RankData& d);
  // One part's packed bytes (a rank as it arrives from another process: the wire format's
  // section) into the file, never copied into memory of the part's own; packed in memory (pages
  // of their own) once the file has failed. Thread-safe (each call its own part).
  template <class File>
  void park_packed(ParkedFile<File>& part, const char* p, size_t n) {
    if (on_) {
      try {
        part.spill_packed(file_, p, n);
        return;
      } catch (const std::exception& e) {
        fail(e.what());
      }
    }
    part.adopt_packed(runtime::PageBuffer(p, n));
  }
  // The file, when every rank went there or none did (kept open as long as the ranks are).
  std::shared_ptr<runtime::SpillFile> file() const { return file_; }
  // Why the file failed ("" when it did not).
  std::string problem() const;

 private:
  void fail(const std::string& why);
  std::shared_ptr<runtime::SpillFile> file_;
  std::atomic<bool> on_{false};
  mutable std::mutex mu_;
  std::string problem_;
};

}  // namespace cs::load
