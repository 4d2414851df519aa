#include "mpi/mpi_comm.h"

#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include "mpi/mpi_watch.h"
#include "runtime/cpu_cores.h"
#include "runtime/interrupt.h"

namespace cs::mpi {

namespace {
constexpr int kTagSize = 101;
constexpr int kTagData = 102;
constexpr int kTagProgress = 103;
constexpr int kTagStream = 104;
constexpr int kTagAgree = 105;        // a process's value, to the root
constexpr int kTagAgreeResult = 106;  // the agreed value, from the root
constexpr int kTagBroadcast = 107;
constexpr int64_t kChunk = int64_t{1} << 30;  // stay below INT_MAX bytes per message

using watch::Clock;
using watch::seconds_text;
using watch::wait_all;
using watch::WaitLimit;

}  // namespace

bool launched_by_mpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "PMI_FD", "SLURM_PROCID"})
    if (std::getenv(name)) return true;
  const char* forced = std::getenv("CLUSTERSCOPE_MPI");
  return forced && std::string_view(forced) == "1";
}

bool launched_as_root_of_several() {
  const std::pair<const char*, const char*> pairs[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [rank, size] : pairs) {
    const char* r = std::getenv(rank);
    const char* n = std::getenv(size);
    if (r && n) return std::atoi(r) == 0 && std::atoi(n) > 1;
  }
  return false;
}

MpiSession::MpiSession(int& argc, char**& argv, double timeout_seconds)
    : timeout_s_(timeout_seconds) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  node_cpus_ = runtime::affinity_cpus();
  if (!initialized && !launched_by_mpi()) return;  // one process, no MPI
  uses_mpi_ = true;
  if (!initialized) {
    start(argc, argv);
  } else {
    int provided = 0;
    MPI_Query_thread(&provided);
    threads_ok_ = provided >= MPI_THREAD_SERIALIZED;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  heard_.assign(static_cast<size_t>(size_), Clock::now());
  watch::stall_if_requested("startup", rank_);  // the test hook (see the header)
  exchange_hosts();
}

bool MpiSession::watches_root() const {
  return uses_mpi_ && size_ > 1 && timeout_s_ > 0 && threads_ok_;
}

std::string MpiSession::describe(int process) const {
  std::string s = "process " + std::to_string(process);
  if (process >= 0 && static_cast<size_t>(process) < hosts_.size())
    s += " on host " + hosts_[static_cast<size_t>(process)];
  else
    s += " (host not known: it stopped before sending its name)";
  return s;
}

double MpiSession::deadline_seconds() const {
  if (timeout_s_ <= 0) return 0;
  return is_root() ? timeout_s_ : 2 * timeout_s_ + 2;
}

void MpiSession::abort_stalled(const std::vector<int>& processes, const std::string& doing) const {
  std::string who;
  for (size_t i = 0; i < processes.size(); ++i) {
    if (i > 0) who += i + 1 == processes.size() ? " and " : ", ";
    who += describe(processes[i]);
  }
  const std::string line =
      "clusterscope: " + who + " did not answer for " + seconds_text(deadline_seconds()) + " s " +
      doing + " (--timeout " + seconds_text(timeout_s_) +
      ") \u2014 stopped, hung or unreachable; every process is ended. Raise --timeout if it "
      "was only slow\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  abort(1);
}

int64_t MpiSession::agree(int64_t local, int op, Arrival arrival, const char* doing) const {
  if (!uses_mpi_ || size_ == 1) return local;
  // A non-root process waiting for the root working alone counts from the root's last heartbeat
  // (RootAlone); without the heartbeat thread it waits without a limit.
  const WaitLimit limit{
      is_root() || arrival == Arrival::kPrompt || watches_root() ? deadline_seconds() : 0.0,
      !is_root()};
  std::vector<int> missing;
  if (!is_root()) {
    int64_t result = 0;
    std::vector<MPI_Request> reqs(2);
    MPI_Isend(&local, 1, MPI_INT64_T, 0, kTagAgree, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&result, 1, MPI_INT64_T, 0, kTagAgreeResult, MPI_COMM_WORLD, &reqs[1]);
    if (!wait_all(reqs, {0, 0}, limit, heard_, missing)) abort_stalled(missing, doing);
    return result;
  }
  std::vector<int64_t> values(static_cast<size_t>(size_), 0);
  std::vector<MPI_Request> reqs(static_cast<size_t>(size_ - 1));
  std::vector<int> peers;
  for (int p = 1; p < size_; ++p) {
    MPI_Irecv(&values[static_cast<size_t>(p)], 1, MPI_INT64_T, p, kTagAgree, MPI_COMM_WORLD,
              &reqs[static_cast<size_t>(p - 1)]);
    peers.push_back(p);
  }
  if (!wait_all(reqs, peers, limit, heard_, missing)) abort_stalled(missing, doing);
  int64_t result = local;
  for (int p = 1; p < size_; ++p) {
    const int64_t v = values[static_cast<size_t>(p)];
    result = op == 0 ? (result != 0 || v != 0) : op == 1 ? std::max(result, v) : result + v;
  }
  for (int p = 1; p < size_; ++p)
    MPI_Isend(&result, 1, MPI_INT64_T, p, kTagAgreeResult, MPI_COMM_WORLD,
              &reqs[static_cast<size_t>(p - 1)]);
  if (!wait_all(reqs, peers, limit, heard_, missing)) abort_stalled(missing, doing);
  return result;
}

MpiSession::~MpiSession() {
  if (owns_init_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

bool MpiSession::any(bool local, Arrival arrival) const {
  return agree(local ? 1 : 0, 0, arrival, "while the processes agreed on errors") != 0;
}

int64_t MpiSession::max(int64_t local, Arrival arrival) const {
  return agree(local, 1, arrival, "while the processes agreed on a value");
}

int64_t MpiSession::max_idle_wait(int64_t local) const {
  return agree(local, 1, Arrival::kRootLast, "while the processes agreed on the exit status");
}

int64_t MpiSession::sum(int64_t local, Arrival arrival) const {
  return agree(local, 2, arrival, "while the processes agreed on a value");
}

std::vector<int64_t> MpiSession::gather_int64(int64_t local) const {
  if (!uses_mpi_) return {local};
  std::vector<int64_t> out(is_root() ? static_cast<size_t>(size_) : 0);
  MPI_Gather(&local, 1, MPI_INT64_T, out.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return out;
}

void MpiSession::broadcast(std::vector<char>& buf) const {
  if (!uses_mpi_ || size_ == 1) return;
  send_from_root([&](int) -> const std::vector<char>& { return buf; }, buf);
}

std::vector<char> MpiSession::scatter(std::vector<std::vector<char>> parts) const {
  std::vector<char> mine;
  if (is_root() && !parts.empty()) mine = std::move(parts[0]);
  if (!uses_mpi_ || size_ == 1) return mine;
  if (is_root() && parts.size() != static_cast<size_t>(size_))
    throw std::invalid_argument("scatter: one part per process is needed");
  send_from_root([&](int p) -> const std::vector<char>& { return parts[static_cast<size_t>(p)]; },
                 mine);
  return mine;
}

void MpiSession::send_from_root(const std::function<const std::vector<char>&(int)>& part_of,
                                std::vector<char>& buf) const {
  // Point to point from the root, so a process that does not take its part can be named.
  std::vector<MPI_Request> reqs;
  std::vector<int> peers, missing;
  const char* doing = "while the list of rank directories was sent";
  if (!is_root()) {
    int64_t n = 0;
    // The root may be discovering the input (RootAlone): as agree() with Arrival::kRootLast.
    const WaitLimit first{watches_root() ? deadline_seconds() : 0.0, true};
    reqs.resize(1);
    MPI_Irecv(&n, 1, MPI_INT64_T, 0, kTagBroadcast, MPI_COMM_WORLD, &reqs[0]);
    if (!wait_all(reqs, {0}, first, heard_, missing)) abort_stalled(missing, doing);
    reqs.clear();
    buf.resize(static_cast<size_t>(n));
    for (int64_t off = 0; off < n; off += kChunk) {
      MPI_Request& r = reqs.emplace_back();
      MPI_Irecv(buf.data() + off, static_cast<int>(std::min(kChunk, n - off)), MPI_BYTE, 0,
                kTagBroadcast, MPI_COMM_WORLD, &r);
      peers.push_back(0);
    }
    if (!wait_all(reqs, peers, {deadline_seconds(), true}, heard_, missing))
      abort_stalled(missing, doing);
    return;
  }
  std::vector<int64_t> sizes(static_cast<size_t>(size_));  // alive until every send completes
  for (int p = 1; p < size_; ++p) {
    const std::vector<char>& part = part_of(p);
    int64_t& n = sizes[static_cast<size_t>(p)];
    n = static_cast<int64_t>(part.size());
    MPI_Request& r = reqs.emplace_back();
    MPI_Isend(&n, 1, MPI_INT64_T, p, kTagBroadcast, MPI_COMM_WORLD, &r);
    peers.push_back(p);
    for (int64_t off = 0; off < n; off += kChunk) {
      MPI_Request& d = reqs.emplace_back();
      MPI_Isend(part.data() + off, static_cast<int>(std::min(kChunk, n - off)), MPI_BYTE, p,
                kTagBroadcast, MPI_COMM_WORLD, &d);
      peers.push_back(p);
    }
  }
  if (!wait_all(reqs, peers, {deadline_seconds(), false}, heard_, missing))
    abort_stalled(missing, doing);
}

std::vector<std::vector<char>> MpiSession::gather_to_root(const std::vector<char>& mine) const {
  std::vector<std::vector<char>> out;
  if (is_root()) {
    out.resize(static_cast<size_t>(size_));
    out[0] = mine;
  }
  gather_to_root_each(
      mine, [&](int p, std::vector<char>&& buf) { out[static_cast<size_t>(p)] = std::move(buf); });
  return out;
}

void MpiSession::gather_to_root_each(
    const std::vector<char>& mine,
    const std::function<void(int, std::vector<char>&&)>& take) const {
  watch::stall_if_requested("each", rank_);  // the test hook (see the header)
  if (!uses_mpi_ || size_ == 1) return;
  const char* doing = "while the processes sent their results to the root";
  std::vector<int> missing;
  std::vector<MPI_Request> reqs;
  if (!is_root()) {
    int64_t n = static_cast<int64_t>(mine.size());
    MPI_Isend(&n, 1, MPI_INT64_T, 0, kTagSize, MPI_COMM_WORLD, &reqs.emplace_back());
    for (int64_t off = 0; off < n; off += kChunk) {
      int len = static_cast<int>(std::min(kChunk, n - off));
      MPI_Isend(mine.data() + off, len, MPI_BYTE, 0, kTagData, MPI_COMM_WORLD,
                &reqs.emplace_back());
    }
    if (!wait_all(reqs, std::vector<int>(reqs.size(), 0), {deadline_seconds(), true}, heard_,
                  missing))
      abort_stalled(missing, doing);
    return;
  }
  // Receive in process order: deterministic, and bounded memory pressure on the root.
  for (int p = 1; p < size_; ++p) {
    int64_t n = 0;
    reqs.assign(1, MPI_REQUEST_NULL);
    MPI_Irecv(&n, 1, MPI_INT64_T, p, kTagSize, MPI_COMM_WORLD, &reqs[0]);
    if (!wait_all(reqs, {p}, {deadline_seconds(), false}, heard_, missing))
      abort_stalled(missing, doing);
    std::vector<char> buf(static_cast<size_t>(n));
    reqs.clear();
    for (int64_t off = 0; off < n; off += kChunk) {
      int len = static_cast<int>(std::min(kChunk, n - off));
      MPI_Irecv(buf.data() + off, len, MPI_BYTE, p, kTagData, MPI_COMM_WORLD, &reqs.emplace_back());
    }
    if (!wait_all(reqs, std::vector<int>(reqs.size(), p), {deadline_seconds(), false}, heard_,
                  missing))
      abort_stalled(missing, doing);
    take(p, std::move(buf));
  }
}

void MpiSession::send_progress(int64_t done, bool final) const {
  if (is_root()) return;
  // [done, final]; a blocking standard send of 16 bytes completes eagerly.
  int64_t msg[2] = {done, final ? 1 : 0};
  MPI_Send(msg, 2, MPI_INT64_T, 0, kTagProgress, MPI_COMM_WORLD);
}

int MpiSession::poll_progress(std::vector<int64_t>& done, std::vector<bool>& finished) const {
  done.resize(static_cast<size_t>(size_), 0);
  finished.resize(static_cast<size_t>(size_), false);
  if (!uses_mpi_) return 0;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagProgress, MPI_COMM_WORLD, &flag, &st);
    if (!flag) break;
    int64_t msg[2];
    MPI_Recv(msg, 2, MPI_INT64_T, st.MPI_SOURCE, kTagProgress, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    done[static_cast<size_t>(st.MPI_SOURCE)] = msg[0];
    heard_[static_cast<size_t>(st.MPI_SOURCE)] = Clock::now();
    if (msg[1]) finished[static_cast<size_t>(st.MPI_SOURCE)] = true;
  }
  return static_cast<int>(std::count(finished.begin() + 1, finished.end(), true));
}

// BatchStream messages, all with kTagStream (so a process's messages arrive in the order sent):
// an int64 header with the batch's size, then the batch in parts of at most kChunk bytes; a
// header of -1 ends the stream.
struct BatchStream::Impl {
  struct Pending {
    int64_t header = 0;
    std::vector<char> data;
    std::vector<MPI_Request> requests;
  };
  // A batch being received on the root.
  struct Incoming {
    bool receiving = false;
    int64_t size = 0, got = 0;
    std::vector<char> data;
  };
  const MpiSession& mpi;
  std::string doing;               // what the processes were doing, for the watchdog's message
  std::deque<Pending> pending;     // non-root: undelivered batches, oldest first
  std::vector<Incoming> incoming;  // root: per process
  int finished = 0;                // root: processes whose stream has ended
  std::vector<bool> ended;         // root: per process, its stream has ended

  Impl(const MpiSession& m, std::string what)
      : mpi(m),
        doing(std::move(what)),
        incoming(static_cast<size_t>(m.size())),
        ended(static_cast<size_t>(m.size())) {}

  void send_header_and_parts(Pending& p) {
    MPI_Request r;
    MPI_Isend(&p.header, 1, MPI_INT64_T, 0, kTagStream, MPI_COMM_WORLD, &r);
    p.requests.push_back(r);
    for (int64_t off = 0; off < p.header; off += kChunk) {
      int len = static_cast<int>(std::min(kChunk, p.header - off));
      MPI_Isend(p.data.data() + off, len, MPI_BYTE, 0, kTagStream, MPI_COMM_WORLD, &r);
      p.requests.push_back(r);
    }
  }
  // Waits until the root has taken the oldest batch, at most the session's deadline.
  void wait_oldest() {
    Pending& p = pending.front();
    std::vector<int> missing;
    if (!wait_all(p.requests, std::vector<int>(p.requests.size(), 0),
                  {mpi.deadline_seconds(), true}, mpi.heard_, missing))
      mpi.abort_stalled(missing, "while this process sent its ranks to it");
    pending.pop_front();
  }
  // Root: ends the job when a process whose stream has not ended sent nothing for the timeout.
  void check_peers() const {
    const double limit = mpi.deadline_seconds();
    if (limit <= 0) return;
    const auto now = Clock::now();
    std::vector<int> silent;
    for (int p = 1; p < mpi.size(); ++p)
      if (!ended[static_cast<size_t>(p)] &&
          std::chrono::duration<double>(now - mpi.heard_[static_cast<size_t>(p)]).count() > limit)
        silent.push_back(p);
    if (!silent.empty()) mpi.abort_stalled(silent, doing);
  }
  // Frees the delivered batches at the front.
  void reap() {
    while (!pending.empty()) {
      Pending& p = pending.front();
      int done = 0;
      MPI_Testall(static_cast<int>(p.requests.size()), p.requests.data(), &done,
                  MPI_STATUSES_IGNORE);
      if (!done) return;
      pending.pop_front();
    }
  }
};

BatchStream::BatchStream(const MpiSession& mpi, std::string doing)
    : impl_(std::make_unique<Impl>(mpi, std::move(doing))) {
  if (!mpi.uses_mpi()) return;
  if (mpi.is_root()) {
    std::fill(mpi.heard_.begin(), mpi.heard_.end(), Clock::now());
    return;
  }
  watch::stall_if_requested("gather", mpi.rank());  // the test hook (see the header)
}

BatchStream::~BatchStream() = default;

void BatchStream::send(std::vector<char>&& batch, size_t max_in_flight) {
  if (impl_->mpi.is_root() || batch.empty()) return;
  impl_->reap();
  while (impl_->pending.size() >= std::max<size_t>(1, max_in_flight)) impl_->wait_oldest();
  Impl::Pending& p = impl_->pending.emplace_back();  // a deque: the buffers stay where they are
  p.header = static_cast<int64_t>(batch.size());
  p.data = std::move(batch);
  impl_->send_header_and_parts(p);
}

void BatchStream::finish() {
  if (impl_->mpi.is_root()) return;
  Impl::Pending& end = impl_->pending.emplace_back();
  end.header = -1;
  impl_->send_header_and_parts(end);
  while (!impl_->pending.empty()) impl_->wait_oldest();
}

int BatchStream::poll(const std::function<void(int, std::vector<char>&&)>& take) {
  Impl& im = *impl_;
  if (!im.mpi.is_root() || !im.mpi.uses_mpi()) return 0;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagStream, MPI_COMM_WORLD, &flag, &st);
    if (!flag) break;
    const int src = st.MPI_SOURCE;  // (heartbeats are drained below)
    im.mpi.heard_[static_cast<size_t>(src)] = Clock::now();
    Impl::Incoming& in = im.incoming[static_cast<size_t>(src)];
    if (!in.receiving) {
      int64_t header = 0;
      MPI_Recv(&header, 1, MPI_INT64_T, src, kTagStream, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (header < 0) {
        ++im.finished;
        im.ended[static_cast<size_t>(src)] = true;
        continue;
      }
      in.receiving = true;
      in.size = header;
      in.got = 0;
      in.data.resize(static_cast<size_t>(header));
    } else {
      int len = static_cast<int>(std::min(kChunk, in.size - in.got));
      MPI_Recv(in.data.data() + in.got, len, MPI_BYTE, src, kTagStream, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      in.got += len;
    }
    if (in.receiving && in.got == in.size) {
      in.receiving = false;
      take(src, std::move(in.data));
      in.data = {};
    }
  }
  watch::drain_heartbeats(im.mpi.heard_);  // a waiting process's heartbeat is a sign of life
  im.check_peers();
  return im.finished;
}

void MpiSession::barrier() const {
  agree(0, 1, Arrival::kPrompt, "at a barrier");
}

void MpiSession::abort(int code) const {
  if (!uses_mpi_) std::exit(code);
  std::lock_guard lock(watch::mpi_mutex());  // not while RootAlone's thread is in MPI
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace cs::mpi
