#pragma once
// A thin, typed wrapper over the few MPI operations the cluster pipeline needs. The tool runs with
// or without a launcher: with none (no launcher's variables in the environment, see
// launched_by_mpi) MPI is not started at all and the session is one process whose collectives
// return its own values (Open MPI's one-process "singleton" start costs ~0.4 s).
//
//   MpiSession mpi(argc, argv);            // MPI_Init / MPI_Finalize under a launcher
//   if (mpi.any(local_failed)) ...         // every process agrees on errors before a collective
//   step auto all = mpi.gather_to_root(bytes);  // rank 0 gets every process's buffer, in process
//   order
//
// Only the thread that created the session may call these (MPI runs MPI_THREAD_SERIALIZED so
// that RootAlone's heartbeat thread may talk while that thread works without MPI).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cpu_cores.h"

namespace cs::mpi {

class MpiSession {
 public:
  // Starts MPI under a launcher. The start-up is watched with `timeout_seconds` (see
  // set_timeout): a process that does not finish MPI_Init ends the job (one message from process
  // 0 naming itself: MPI cannot say which process is missing); one that finishes it but then does
  // not answer is named with its host.
  MpiSession(int& argc, char**& argv, double timeout_seconds = 600);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // False when MPI was not started (no launcher): every call below is then local.
  bool uses_mpi() const { return uses_mpi_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  // Processes of this job on this node (for the default thread count).
  int local_size() const { return local_size_; }
  // The CPUs the processes of this job on this node may run on (the union of their affinity
  // masks at start, ids below 1024); this process's own without MPI.
  const std::vector<int>& node_cpus() const { return node_cpus_; }

  // How the processes reach an agreement (any, max, sum), for the watchdog (set_timeout):
  //   kRootLast: the root may work alone first (discovery, analyses); the others wait for it
  //              without a limit, the root waits for them at most the timeout.
  //   kPrompt:   every process arrives at about the same time; each waits at most the timeout
  //              (the non-root processes, which wait on the root, twice the timeout + 2 s, so the
  //              root names a stalled peer first).
  enum class Arrival { kRootLast, kPrompt };

  // Seconds a watched wait for another process lasts before the job is ended: one message naming
  // the process(es) and host(s) that did not answer, then MPI_Abort(1) ends every process.
  // 0 = no limit. Default 600.
  void set_timeout(double seconds) { timeout_s_ = seconds; }
  double timeout() const { return timeout_s_; }
  // True when the root's solo phases are watched (MPI, 2+ processes, a timeout, threads).
  bool watches_root() const;

  // A phase where the root works alone (discovery, the analyses, writing) while the others wait
  // for it. Create it on every process at the same point; on the root, a thread sends a heartbeat
  // to each waiting process every 0.4 s and ends the job when one of theirs stops for the
  // timeout; a waiting process ends it when the root's stop for twice the timeout + 2 s. The
  // thread that created the session must not call MPI while the scope lives.
  //   { MpiSession::RootAlone alone(mpi, "discover", "discovered the rank directories"); ... }
  // `phase` is the test hook's name for this point (CLUSTERSCOPE_TEST_STALL_PHASE).
  // Meanwhile the root's threads may also run on the cores of the other processes of its node,
  // which wait (runtime::WiderAffinity; mpirun binds two processes to one core each by default).
  class RootAlone {
   public:
    RootAlone(const MpiSession& mpi, std::string_view phase, std::string doing);
    ~RootAlone();
    RootAlone(const RootAlone&) = delete;
    RootAlone& operator=(const RootAlone&) = delete;
    // True on the root when this phase gave it cores of its node's waiting processes.
    bool widened() const { return wider_ && wider_->widened(); }

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::optional<runtime::WiderAffinity> wider_;
  };
  // "process 3 on host node7".
  std::string describe(int process) const;
  // Ends the job: `processes` did not answer for the timeout while `doing` ("while the ranks were
  // parsed and gathered"). Prints one message, then MPI_Abort.
  [[noreturn]] void abort_stalled(const std::vector<int>& processes,
                                  const std::string& doing) const;

  // Collective: true when any process passes true. Every agreement is point to point through the
  // root (a few bytes per process), so a process that does not answer can be named.
  bool any(bool local, Arrival arrival = Arrival::kRootLast) const;
  // Collective: maximum / sum of a value over processes, returned on every process.
  int64_t max(int64_t local, Arrival arrival = Arrival::kRootLast) const;
  int64_t sum(int64_t local, Arrival arrival = Arrival::kRootLast) const;
  // Collective, max() where the root works alone for long (analyses): a process that arrives
  // early sleeps while it waits (it never takes a core from the root's threads).
  int64_t max_idle_wait(int64_t local) const;
  // Collective: gathers one int64 per process to the root (empty elsewhere).
  std::vector<int64_t> gather_int64(int64_t local) const;
  // Collective: rank 0's buffer is copied to every process (others' `buf` is replaced). The others
  // wait for the root (it discovers the input first: run that in a RootAlone scope); the root
  // waits for each of them at most the timeout.
  void broadcast(std::vector<char>& buf) const;
  // Collective, watched as broadcast: process p gets parts[p] of the root's `parts` (one per
  // process; the others pass nothing). Each process receives only its own part, so what leaves
  // the root is the sum of the parts, not one whole copy per process.
  std::vector<char> scatter(std::vector<std::vector<char>> parts) const;
  // Collective: each process sends `mine`; rank 0 returns all buffers in process order (its own
  // first), others return an empty vector. Buffers of any size (sent in chunks below 1 GiB).
  std::vector<std::vector<char>> gather_to_root(const std::vector<char>& mine) const;
  // Collective, the streaming form: the root calls take(p, buffer) for each process p >= 1 in
  // process order as its buffer arrives, so it never holds more than one received buffer.
  // Watched as Arrival::kPrompt: the root waits for each process at most the timeout.
  void gather_to_root_each(const std::vector<char>& mine,
                           const std::function<void(int, std::vector<char>&&)>& take) const;

  // Progress side channel (not collective): non-root processes report how many items they have
  // finished; the root polls without blocking. Each non-root must end with send_progress(n, true).
  void send_progress(int64_t done, bool final) const;
  // Root only: receives pending progress messages. Updates per-process counts in `done` (size()
  // entries) and returns the number of processes that sent their final message so far. Every
  // message counts as a sign of life for BatchStream's watchdog (a non-root process sends one at
  // least every second while it works).
  int poll_progress(std::vector<int64_t>& done, std::vector<bool>& finished) const;

  // Collective (MPI_Allgatherv, not watched): every process's `mine`, in process order, on every
  // process. For the parallel HDF5 writes (mpi/mpi_io.cpp).
  std::vector<std::vector<uint64_t>> all_gather(const std::vector<uint64_t>& mine) const;
  // Collective (MPI_Allreduce MAX, not watched): the element-wise maximum of `values`, on every
  // process; every process passes as many values.
  std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const;
  // The communicator and info object an MPI-IO file is opened with (HDF5's MPI-IO driver), opaque
  // so that this header stays free of MPI's types: the addresses of an MPI_Comm (the world) and
  // an MPI_Info (MPI_INFO_NULL), valid for the program's life; null without MPI.
  struct MpiIoHandles {
    const void* comm = nullptr;
    const void* info = nullptr;
  };
  MpiIoHandles mpi_io_handles() const;

  // Collective, watched as Arrival::kPrompt.
  void barrier() const;
  // Ends every process of the job now (for unrecoverable errors under a launcher).
  [[noreturn]] void abort(int code) const;

 private:
  // broadcast / scatter: the root sends part_of(p) to each process p >= 1; the others receive
  // theirs into `buf`.
  void send_from_root(const std::function<const std::vector<char>&(int)>& part_of,
                      std::vector<char>& buf) const;
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  bool owns_init_ = false;
  bool uses_mpi_ = false;
  bool threads_ok_ = false;  // MPI_THREAD_SERIALIZED provided
  double timeout_s_ = 600;
  std::vector<std::string> hosts_;  // host name of each process
  std::vector<int> node_cpus_;      // node_cpus()
  friend class BatchStream;
  // Root: when each process was last heard from (progress or stream messages).
  mutable std::vector<std::chrono::steady_clock::time_point> heard_;
  // Seconds this process waits for another in a watched wait (0 = no limit).
  double deadline_seconds() const;
  // MPI_Init watched by a guard thread; then the host names, point to point through the root.
  void start(int& argc, char**& argv);
  void exchange_hosts();
  // any / max / sum through the root (op 0 = or, 1 = max, 2 = sum), watched.
  int64_t agree(int64_t local, int op, Arrival arrival, const char* doing) const;
};

// True when this process was started by an MPI launcher (mpirun/mpiexec of Open MPI or MPICH,
// srun): one of their variables (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK, PMI_SIZE, PMI_FD,
// SLURM_PROCID) is set, or CLUSTERSCOPE_MPI=1 asks for MPI anyway.
bool launched_by_mpi();

// True when the launcher started this process as process 0 of several (OMPI_COMM_WORLD_RANK /
// _SIZE, PMI_RANK / PMI_SIZE, SLURM_PROCID / SLURM_NTASKS): the root of a multi-process run,
// known before MPI is started.
bool launched_as_root_of_several();

// Streaming side channel (not collective) for the gather: non-root processes send byte batches to
// the root while they are still working; the root takes them as they arrive. Batches of one
// process arrive in the order sent. Every process creates one at the same point; each non-root
// ends with finish(), and the root polls until every other process has finished.
// Watchdog: poll() ends the job (MpiSession::abort_stalled) when a process whose stream has not
// ended sent nothing (no batch, no progress message) for the session's timeout; a non-root whose
// batches the root does not take within its deadline ends it too.
// Test hook (tests only): CLUSTERSCOPE_TEST_STALL_PROCESS=N makes process N sleep
// CLUSTERSCOPE_TEST_STALL_SECONDS (default 3600), sending nothing, as a stopped process would, at
// the point CLUSTERSCOPE_TEST_STALL_PHASE names: "init" (before MPI_Init), "startup" (after it,
// before the host names are exchanged), "gather" (the default: a non-root process creating its
// stream, the loader's or a recipe run's), "each" (gather_to_root_each, before sending or
// receiving), or a RootAlone scope's phase ("discover", "analyse", "reduce", "db-discover",
// "db-write", "merge-write"; a non-root process sleeps there too).
// CLUSTERSCOPE_TEST_SLOW_ROOT=<phase>:<seconds> makes the root sleep that long in a RootAlone scope
// while its heartbeat thread runs (a slow, not a stopped, root).
class BatchStream {
 public:
  // `doing` ends the watchdog's message ("process 1 on host h did not answer for 600 s while
  // ...").
  explicit BatchStream(const MpiSession& mpi,
                       std::string doing = "while the ranks were parsed and gathered");
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // Non-root: sends `batch` without waiting for the root (the buffer is kept until delivered).
  // With `max_in_flight` batches undelivered it first waits for the oldest.
  void send(std::vector<char>&& batch, size_t max_in_flight = 4);
  // Non-root: ends this process's stream and returns once every batch is delivered.
  void finish();
  // Root: calls take(process, batch) for each batch that has arrived; returns how many other
  // processes have finished their stream.
  int poll(const std::function<void(int, std::vector<char>&&)>& take);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cs::mpi
