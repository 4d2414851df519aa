#include "mpi/mpi_watch.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "mpi/mpi_comm.h"
#include "runtime/interrupt.h"

namespace cs::mpi {
namespace watch {

namespace {
std::atomic<bool> g_stalled{false};
}  // namespace

std::recursive_mutex& mpi_mutex() {
  static std::recursive_mutex m;
  return m;
}

void send_heartbeat(int process) {
  MPI_Request r;
  MPI_Isend(nullptr, 0, MPI_BYTE, process, kTagHeartbeat, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
}

bool drain_heartbeats(std::vector<Clock::time_point>& heard) {
  bool from_root = false;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return from_root;
    MPI_Recv(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (static_cast<size_t>(st.MPI_SOURCE) < heard.size())
      heard[static_cast<size_t>(st.MPI_SOURCE)] = Clock::now();
    from_root |= st.MPI_SOURCE == 0;
  }
}

bool wait_all(std::vector<MPI_Request>& reqs, const std::vector<int>& peers, WaitLimit limit,
              std::vector<Clock::time_point>& heard, std::vector<int>& missing) {
  auto start = Clock::now();
  auto beat_sent = start - kBeatEvery;
  auto nap = std::chrono::microseconds(200);
  for (;;) {
    runtime::interrupt_checkpoint("idle");  // a waiting process ends on SIGINT/SIGTERM too
    int done = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return true;
    const auto now = Clock::now();
    if (drain_heartbeats(heard) && limit.root_silence) start = now;
    if (limit.root_silence && now - beat_sent >= kBeatEvery) {
      send_heartbeat(0);
      beat_sent = now;
    }
    if (limit.seconds > 0 && std::chrono::duration<double>(now - start).count() > limit.seconds) {
      missing.clear();
      for (size_t i = 0; i < reqs.size(); ++i) {
        int flag = 0;
        if (reqs[i] != MPI_REQUEST_NULL) MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
        if (reqs[i] != MPI_REQUEST_NULL && !flag) missing.push_back(peers[i]);
      }
      std::sort(missing.begin(), missing.end());
      missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
      if (missing.empty()) return true;
      return false;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20000));
  }
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

bool stall_requested(std::string_view phase, int process) {
  const char* who = std::getenv("CLUSTERSCOPE_TEST_STALL_PROCESS");
  if (!who || std::atoi(who) != process) return false;
  const char* which = std::getenv("CLUSTERSCOPE_TEST_STALL_PHASE");
  return phase == (which && *which ? std::string_view(which) : std::string_view("gather"));
}

void stall_if_requested(std::string_view phase, int process) {
  if (!stall_requested(phase, process)) return;
  const char* secs = std::getenv("CLUSTERSCOPE_TEST_STALL_SECONDS");
  g_stalled = true;
  std::this_thread::sleep_for(std::chrono::seconds(secs ? std::atoi(secs) : 3600));
  g_stalled = false;
}

bool stalled() {
  return g_stalled;
}

}  // namespace watch

// The root's heartbeat thread: every kBeatEvery a heartbeat to each other process, theirs
// received; a process silent for the timeout ends the job.
struct MpiSession::RootAlone::Impl {
  const MpiSession& mpi;
  std::string doing;
  std::mutex m;
  std::condition_variable wake;
  bool stop = false;  // under m
  std::thread beat;

  Impl(const MpiSession& m, std::string d) : mpi(m), doing(std::move(d)) {}
  void run() {
    for (;;) {
      {
        std::lock_guard lock(watch::mpi_mutex());
        if (!watch::stalled()) {
          for (int p = 1; p < mpi.size(); ++p) watch::send_heartbeat(p);
          watch::drain_heartbeats(mpi.heard_);
          std::vector<int> silent;
          const auto now = watch::Clock::now();
          for (int p = 1; p < mpi.size(); ++p)
            if (std::chrono::duration<double>(now - mpi.heard_[static_cast<size_t>(p)]).count() >
                mpi.timeout())
              silent.push_back(p);
          if (!silent.empty()) mpi.abort_stalled(silent, "while the root " + doing);
        }
      }
      std::unique_lock lock(m);
      if (wake.wait_for(lock, watch::kBeatEvery, [this] { return stop; })) return;
    }
  }
};

MpiSession::RootAlone::RootAlone(const MpiSession& mpi, std::string_view phase, std::string doing) {
  watch::stall_if_requested(phase, mpi.rank());  // the test hook (mpi_comm.h)
  if (mpi.is_root() && mpi.uses_mpi() && mpi.local_size() > 1) wider_.emplace(mpi.node_cpus());
  if (!mpi.is_root() || !mpi.watches_root()) return;
  impl_ = std::make_unique<Impl>(mpi, std::move(doing));
  std::fill(mpi.heard_.begin(), mpi.heard_.end(), watch::Clock::now());
  impl_->beat = std::thread([im = impl_.get()] { im->run(); });
  // Test hook: CLUSTERSCOPE_TEST_SLOW_ROOT=<phase>:<seconds>, a root slow (but alive) here.
  if (const char* slow = std::getenv("CLUSTERSCOPE_TEST_SLOW_ROOT")) {
    const std::string_view v(slow);
    const size_t colon = v.find(':');
    if (colon != std::string_view::npos && v.substr(0, colon) == phase)
      std::this_thread::sleep_for(std::chrono::seconds(std::atoi(slow + colon + 1)));
  }
}

MpiSession::RootAlone::~RootAlone() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->m);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  impl_->beat.join();
}

}  // namespace cs::mpi
