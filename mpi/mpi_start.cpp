// MpiSession's start: MPI_Init under a guard thread, then the host names through the root, both
// watched (mpi_comm.h).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "mpi/mpi_comm.h"
#include "mpi/mpi_watch.h"
#include "runtime/cpu_cores.h"

namespace cs::mpi {

namespace {
constexpr int kTagHosts = 109;
constexpr int kHostChars = 64;
constexpr int kCpuBits = 1024;  // CPU ids of the affinity masks exchanged at start (CPU_SETSIZE)
constexpr int kSlotBytes = kHostChars + kCpuBits / 8;
using watch::seconds_text;
using watch::wait_all;

// The launcher's rank of this process before MPI is started, -1 when unknown.
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return -1;
}

}  // namespace

void MpiSession::start(int& argc, char**& argv) {
  // MPI_Init returns only once every process has called it: a guard ends this process when it
  // does not return within the timeout (the launcher then ends the others). Process 0 speaks
  // first; the others wait 2 s more, so one message is printed unless process 0 is the one.
  const int me = launcher_rank();
  std::mutex m;
  std::condition_variable cv;
  bool started = false;
  std::thread guard;
  if (timeout_s_ > 0) {
    guard = std::thread([&] {
      std::unique_lock lock(m);
      const auto limit = std::chrono::duration<double>(timeout_s_ + (me == 0 ? 0 : 2));
      if (cv.wait_for(lock, limit, [&] { return started; }) || watch::stalled()) return;
      char host[kHostChars] = {};
      if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
      std::fprintf(stderr,
                   "clusterscope: process %d on host %s: the MPI start-up did not finish in %s s "
                   "(--timeout %s) — another process of the job is stopped, hung or "
                   "unreachable; every process is ended. Raise --timeout if it was only slow\n",
                   me, host, seconds_text(timeout_s_ + (me == 0 ? 0 : 2)).c_str(),
                   seconds_text(timeout_s_).c_str());
      std::fflush(stderr);
      std::_Exit(1);
    });
  }
  watch::stall_if_requested("init", me);  // the test hook (see the header)
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  threads_ok_ = provided >= MPI_THREAD_SERIALIZED;
  owns_init_ = true;
  {
    std::lock_guard lock(m);
    started = true;
  }
  cv.notify_all();
  if (guard.joinable()) guard.join();
}

void MpiSession::exchange_hosts() {
  // Point to point through the root, watched, so a process that stops here is named. Each
  // process's slot: its host name, then its CPU affinity mask (one bit per CPU id).
  std::vector<char> all(static_cast<size_t>(size_) * kSlotBytes);
  char* mine = all.data() + static_cast<size_t>(rank_) * kSlotBytes;
  if (::gethostname(mine, kHostChars - 1) != 0) std::strcpy(mine, "?");
  for (const int c : runtime::affinity_cpus())
    if (c < kCpuBits)
      mine[kHostChars + c / 8] = static_cast<char>(mine[kHostChars + c / 8] | (1 << (c % 8)));
  std::vector<MPI_Request> reqs;
  std::vector<int> peers, missing;
  const char* doing = "while the processes started";
  if (size_ > 1) {
    if (is_root()) {
      for (int p = 1; p < size_; ++p) {
        MPI_Irecv(all.data() + static_cast<size_t>(p) * kSlotBytes, kSlotBytes, MPI_CHAR, p,
                  kTagHosts, MPI_COMM_WORLD, &reqs.emplace_back());
        peers.push_back(p);
      }
      if (!wait_all(reqs, peers, {deadline_seconds(), false}, heard_, missing))
        abort_stalled(missing, doing);
      reqs.clear();
      for (int p = 1; p < size_; ++p)
        MPI_Isend(all.data(), static_cast<int>(all.size()), MPI_CHAR, p, kTagHosts, MPI_COMM_WORLD,
                  &reqs.emplace_back());
    } else {
      MPI_Isend(mine, kSlotBytes, MPI_CHAR, 0, kTagHosts, MPI_COMM_WORLD, &reqs.emplace_back());
      if (!wait_all(reqs, {0}, {deadline_seconds(), true}, heard_, missing))
        abort_stalled(missing, doing);
      reqs.clear();
      MPI_Irecv(all.data(), static_cast<int>(all.size()), MPI_CHAR, 0, kTagHosts, MPI_COMM_WORLD,
                &reqs.emplace_back());
      peers.assign(1, 0);
    }
    if (!wait_all(reqs, is_root() ? peers : std::vector<int>{0}, {deadline_seconds(), !is_root()},
                  heard_, missing))
      abort_stalled(missing, doing);
  }
  for (int p = 0; p < size_; ++p) {
    const char* h = all.data() + static_cast<size_t>(p) * kSlotBytes;
    hosts_.emplace_back(h, strnlen(h, kHostChars - 1));
  }
  // Processes on this node: those with this host name; their CPUs together.
  const std::string& here = hosts_[static_cast<size_t>(rank_)];
  local_size_ = static_cast<int>(std::count(hosts_.begin(), hosts_.end(), here));
  unsigned char node_mask[kCpuBits / 8] = {};
  for (int p = 0; p < size_; ++p) {
    if (hosts_[static_cast<size_t>(p)] != here) continue;
    const char* mask = all.data() + static_cast<size_t>(p) * kSlotBytes + kHostChars;
    for (int b = 0; b < kCpuBits / 8; ++b) node_mask[b] |= static_cast<unsigned char>(mask[b]);
  }
  node_cpus_.clear();
  for (int c = 0; c < kCpuBits; ++c)
    if ((node_mask[c / 8] >> (c % 8)) & 1u) node_cpus_.push_back(c);
}

}  // namespace cs::mpi
