#include "mpi/mpi_comm.h"

#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string_view>
#include <thread>

#include "runtime/interrupt.h"

namespace cs::cluster {

namespace {
constexpr int kTagSize = 101;
constexpr int kTagData = 102;
constexpr int kTagProgress = 103;
constexpr int kTagStream = 104;
constexpr int kTagAgree = 105;        // a process's value, to the root
constexpr int kTagAgreeResult = 106;  // the agreed value, from the root
constexpr int kTagBroadcast = 107;
constexpr int64_t kChunk = int64_t{1} << 30;  // stay below INT_MAX bytes per message
constexpr int kHostChars = 64;

using Clock = std::chrono::steady_clock;

// Waits for `reqs` (reqs[i] talks to process peers[i]) without spinning: tests, then sleeps
// 0.2 ms doubling up to 20 ms. `seconds` <= 0: no limit. False when the limit passed first;
// `missing` then names the processes whose requests are not complete.
bool wait_all(std::vector<MPI_Request>& reqs, const std::vector<int>& peers, double seconds,
              std::vector<int>& missing) {
  const auto start = Clock::now();
  auto nap = std::chrono::microseconds(200);
  for (;;) {
    runtime::interrupt_checkpoint("idle");  // a waiting process ends on SIGINT/SIGTERM too
    int done = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return true;
    if (seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() > seconds) {
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

}  // namespace

bool launched_by_mpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "PMI_FD", "SLURM_PROCID"})
    if (std::getenv(name)) return true;
  const char* forced = std::getenv("CLUSTERSCOPE_MPI");
  return forced && std::string_view(forced) == "1";
}

MpiSession::MpiSession(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && !launched_by_mpi()) return;  // one process, no MPI
  uses_mpi_ = true;
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    owns_init_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  // Host names, for the watchdog's messages.
  char mine[kHostChars] = {};
  if (::gethostname(mine, sizeof mine - 1) != 0) std::strcpy(mine, "?");
  std::vector<char> all(static_cast<size_t>(size_) * kHostChars);
  MPI_Allgather(mine, kHostChars, MPI_CHAR, all.data(), kHostChars, MPI_CHAR, MPI_COMM_WORLD);
  for (int p = 0; p < size_; ++p) {
    const char* h = all.data() + static_cast<size_t>(p) * kHostChars;
    hosts_.emplace_back(h, strnlen(h, kHostChars));
  }
  heard_.assign(static_cast<size_t>(size_), Clock::now());
}

std::string MpiSession::describe(int process) const {
  std::string s = "process " + std::to_string(process);
  if (process >= 0 && static_cast<size_t>(process) < hosts_.size())
    s += " on host " + hosts_[static_cast<size_t>(process)];
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
  const double limit =
      is_root() || arrival == Arrival::kPrompt ? deadline_seconds() : 0.0;  // 0: no limit
  std::vector<int> missing;
  if (!is_root()) {
    int64_t result = 0;
    std::vector<MPI_Request> reqs(2);
    MPI_Isend(&local, 1, MPI_INT64_T, 0, kTagAgree, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&result, 1, MPI_INT64_T, 0, kTagAgreeResult, MPI_COMM_WORLD, &reqs[1]);
    if (!wait_all(reqs, {0, 0}, limit, missing)) abort_stalled(missing, doing);
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
  if (!wait_all(reqs, peers, limit, missing)) abort_stalled(missing, doing);
  int64_t result = local;
  for (int p = 1; p < size_; ++p) {
    const int64_t v = values[static_cast<size_t>(p)];
    result = op == 0 ? (result != 0 || v != 0) : op == 1 ? std::max(result, v) : result + v;
  }
  for (int p = 1; p < size_; ++p)
    MPI_Isend(&result, 1, MPI_INT64_T, p, kTagAgreeResult, MPI_COMM_WORLD,
              &reqs[static_cast<size_t>(p - 1)]);
  if (!wait_all(reqs, peers, limit, missing)) abort_stalled(missing, doing);
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
  // Point to point from the root, so a process that does not take its copy can be named.
  int64_t n = static_cast<int64_t>(buf.size());
  std::vector<MPI_Request> reqs;
  std::vector<int> peers, missing;
  if (!is_root()) {
    MPI_Recv(&n, 1, MPI_INT64_T, 0, kTagBroadcast, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf.resize(static_cast<size_t>(n));
    for (int64_t off = 0; off < n; off += kChunk) {
      MPI_Request& r = reqs.emplace_back();
      MPI_Irecv(buf.data() + off, static_cast<int>(std::min(kChunk, n - off)), MPI_BYTE, 0,
                kTagBroadcast, MPI_COMM_WORLD, &r);
      peers.push_back(0);
    }
    if (!wait_all(reqs, peers, deadline_seconds(), missing))
      abort_stalled(missing, "while the list of rank directories was sent");
    return;
  }
  for (int p = 1; p < size_; ++p) {
    MPI_Request& r = reqs.emplace_back();
    MPI_Isend(&n, 1, MPI_INT64_T, p, kTagBroadcast, MPI_COMM_WORLD, &r);
    peers.push_back(p);
    for (int64_t off = 0; off < n; off += kChunk) {
      MPI_Request& d = reqs.emplace_back();
      MPI_Isend(buf.data() + off, static_cast<int>(std::min(kChunk, n - off)), MPI_BYTE, p,
                kTagBroadcast, MPI_COMM_WORLD, &d);
      peers.push_back(p);
    }
  }
  if (!wait_all(reqs, peers, deadline_seconds(), missing))
    abort_stalled(missing, "while the list of rank directories was sent");
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
  if (!is_root()) {
    int64_t n = static_cast<int64_t>(mine.size());
    MPI_Send(&n, 1, MPI_INT64_T, 0, kTagSize, MPI_COMM_WORLD);
    for (int64_t off = 0; off < n; off += kChunk) {
      int len = static_cast<int>(std::min(kChunk, n - off));
      MPI_Send(mine.data() + off, len, MPI_BYTE, 0, kTagData, MPI_COMM_WORLD);
    }
    return;
  }
  // Receive in process order: deterministic, and bounded memory pressure on the root.
  for (int p = 1; p < size_; ++p) {
    int64_t n = 0;
    MPI_Recv(&n, 1, MPI_INT64_T, p, kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<char> buf(static_cast<size_t>(n));
    for (int64_t off = 0; off < n; off += kChunk) {
      int len = static_cast<int>(std::min(kChunk, n - off));
      MPI_Recv(buf.data() + off, len, MPI_BYTE, p, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
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
  std::deque<Pending> pending;     // non-root: undelivered batches, oldest first
  std::vector<Incoming> incoming;  // root: per process
  int finished = 0;                // root: processes whose stream has ended
  std::vector<bool> ended;         // root: per process, its stream has ended

  explicit Impl(const MpiSession& m)
      : mpi(m), incoming(static_cast<size_t>(m.size())), ended(static_cast<size_t>(m.size())) {}

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
    if (!wait_all(p.requests, std::vector<int>(p.requests.size(), 0), mpi.deadline_seconds(),
                  missing))
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
    if (!silent.empty()) mpi.abort_stalled(silent, "while the ranks were parsed and gathered");
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

BatchStream::BatchStream(const MpiSession& mpi) : impl_(std::make_unique<Impl>(mpi)) {
  if (!mpi.uses_mpi()) return;
  if (mpi.is_root()) {
    std::fill(mpi.heard_.begin(), mpi.heard_.end(), Clock::now());
    return;
  }
  // Test hook (see the header): this process stalls before it sends anything.
  const char* stall = std::getenv("CLUSTERSCOPE_TEST_STALL_PROCESS");
  if (stall && std::atoi(stall) == mpi.rank()) {
    const char* secs = std::getenv("CLUSTERSCOPE_TEST_STALL_SECONDS");
    std::this_thread::sleep_for(std::chrono::seconds(secs ? std::atoi(secs) : 3600));
  }
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
    const int src = st.MPI_SOURCE;
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
  im.check_peers();
  return im.finished;
}

void MpiSession::barrier() const {
  agree(0, 1, Arrival::kPrompt, "at a barrier");
}

void MpiSession::abort(int code) const {
  if (!uses_mpi_) std::exit(code);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace cs::cluster
