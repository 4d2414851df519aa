#include "mpi/mpi_comm.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
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
constexpr int64_t kChunk = int64_t{1} << 30;  // stay below INT_MAX bytes per message
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
}

MpiSession::~MpiSession() {
  if (owns_init_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

bool MpiSession::any(bool local) const {
  if (!uses_mpi_) return local;
  int in = local ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return out != 0;
}

int64_t MpiSession::max(int64_t local) const {
  if (!uses_mpi_) return local;
  int64_t out = 0;
  MPI_Allreduce(&local, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

int64_t MpiSession::max_idle_wait(int64_t local) const {
  int64_t out = 0;
  if (size_ == 1) return local;
  MPI_Request req;
  MPI_Iallreduce(&local, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &req);
  int done = 0;
  auto nap = std::chrono::microseconds(200);
  while (true) {
    runtime::interrupt_checkpoint("idle");  // a waiting process ends on SIGINT/SIGTERM too
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20000));
  }
  return out;
}

int64_t MpiSession::sum(int64_t local) const {
  if (!uses_mpi_) return local;
  int64_t out = 0;
  MPI_Allreduce(&local, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

std::vector<int64_t> MpiSession::gather_int64(int64_t local) const {
  if (!uses_mpi_) return {local};
  std::vector<int64_t> out(is_root() ? static_cast<size_t>(size_) : 0);
  MPI_Gather(&local, 1, MPI_INT64_T, out.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return out;
}

void MpiSession::broadcast(std::vector<char>& buf) const {
  if (!uses_mpi_) return;
  int64_t n = static_cast<int64_t>(buf.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  buf.resize(static_cast<size_t>(n));
  for (int64_t off = 0; off < n; off += kChunk) {
    int len = static_cast<int>(std::min(kChunk, n - off));
    MPI_Bcast(buf.data() + off, len, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
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

  explicit Impl(const MpiSession& m) : mpi(m), incoming(static_cast<size_t>(m.size())) {}

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
  void wait_oldest() {
    Pending& p = pending.front();
    MPI_Waitall(static_cast<int>(p.requests.size()), p.requests.data(), MPI_STATUSES_IGNORE);
    pending.pop_front();
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

BatchStream::BatchStream(const MpiSession& mpi) : impl_(std::make_unique<Impl>(mpi)) {}

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
    Impl::Incoming& in = im.incoming[static_cast<size_t>(src)];
    if (!in.receiving) {
      int64_t header = 0;
      MPI_Recv(&header, 1, MPI_INT64_T, src, kTagStream, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (header < 0) {
        ++im.finished;
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
  return im.finished;
}

void MpiSession::barrier() const {
  if (!uses_mpi_) return;
  MPI_Barrier(MPI_COMM_WORLD);
}

void MpiSession::abort(int code) const {
  if (!uses_mpi_) std::exit(code);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace cs::cluster
