#pragma once
// Named, timed phases and a progress bar, printed to stderr by the root process only when enabled
// (stderr is a terminal, or --progress), silent otherwise.
//
//   PhaseLog log(enabled);
//   log.begin("parse"); ...; log.end("2048 ranks, 41.2 GB");
//   -> "clusterscope: parse      12.41 s  peak RSS 812 MB  2048 ranks, 41.2 GB"

#include <chrono>
#include <cstdint>
#include <string>

namespace cs::runtime {

// Peak resident set size of this process so far, in bytes.
uint64_t peak_rss_bytes();
// "1.5 GB", "812 MB", "12 KB".
std::string human_bytes(uint64_t bytes);

// CPU seconds the calling thread has used so far (CLOCK_THREAD_CPUTIME_ID): timing one step
// among several on their own threads.
double thread_cpu_seconds();

class PhaseLog {
 public:
  explicit PhaseLog(bool enabled) : enabled_(enabled) {}
  void begin(std::string name);
  // Ends the current phase; returns its seconds.
  double end(const std::string& detail = {});
  // Inside a phase: prints the wall and CPU seconds since the previous lap (or the phase's start)
  // under `what`, e.g. "  analyse/cluster_communication.json 0.41 s (cpu 0.40 s)".
  void lap(const char* what);
  // Inside a phase: prints a sub-step measured elsewhere (a task on another thread).
  void note(const std::string& what, double wall_s, double cpu_s);
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::string name_;
  std::chrono::steady_clock::time_point start_, lap_;
  double lap_cpu_ = 0;
};

// A single-line progress bar ("\r" redraws), at most ~10 redraws per second.
class ProgressBar {
 public:
  ProgressBar(bool enabled, std::string label, int64_t total, uint64_t total_bytes);
  void update(int64_t done, uint64_t done_bytes);
  void finish();

 private:
  bool enabled_;
  std::string label_;
  int64_t total_;
  uint64_t total_bytes_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

}  // namespace cs::runtime
