#pragma once
// Internal to mpi/ (includes <mpi.h>): the watched waits of the watchdog, the heartbeats a root
// working alone sends (MpiSession::RootAlone) and the test hook that stalls a process.

#include <mpi.h>

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cs::mpi::watch {

using Clock = std::chrono::steady_clock;

constexpr int kTagHeartbeat = 108;  // an empty message: "this process is alive"
// How often a process that waits (or a root working alone) sends its heartbeat.
constexpr std::chrono::milliseconds kBeatEvery{400};

// Held for every MPI call made off the main thread (RootAlone's heartbeat thread) and by
// MpiSession::abort: MPI runs MPI_THREAD_SERIALIZED.
std::recursive_mutex& mpi_mutex();

// Sends an empty heartbeat to `process` without waiting (the request is freed at once).
void send_heartbeat(int process);

// Receives every heartbeat that has arrived; heard[source] = now for each. True when one came
// from process 0.
bool drain_heartbeats(std::vector<Clock::time_point>& heard);

// How a wait_all measures its limit.
struct WaitLimit {
  double seconds = 0;         // <= 0: no limit
  bool root_silence = false;  // non-root: the limit counts from the root's last heartbeat, and
                              // this process sends its own heartbeat to the root while it waits
};

// Waits for `reqs` (reqs[i] talks to process peers[i]) without spinning: tests, then sleeps
// 0.2 ms doubling up to 20 ms; heartbeats are received meanwhile (into `heard`). False when the
// limit passed first; `missing` then names the processes whose requests are not complete.
bool wait_all(std::vector<MPI_Request>& reqs, const std::vector<int>& peers, WaitLimit limit,
              std::vector<Clock::time_point>& heard, std::vector<int>& missing);

// "3", "0.5".
std::string seconds_text(double s);

// The test hook (mpi_comm.h): true when CLUSTERSCOPE_TEST_STALL_PROCESS names `process` and
// CLUSTERSCOPE_TEST_STALL_PHASE (default "gather") names `phase`.
bool stall_requested(std::string_view phase, int process);
// Sleeps CLUSTERSCOPE_TEST_STALL_SECONDS (default 3600) when stall_requested(); meanwhile this
// process sends no heartbeat and its start-up guard stays quiet, as a stopped process would.
void stall_if_requested(std::string_view phase, int process);
// True while this process sleeps in the hook.
bool stalled();

}  // namespace cs::mpi::watch
