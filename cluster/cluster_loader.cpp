#include "cluster/cluster_loader.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "cluster/packed_queue.h"
#include "load/discovery.h"
#include "load/partition.h"
#include "load/rank_data_codec.h"
#include "load/rank_spill.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/interrupt.h"
#include "runtime/task_runner.h"

namespace cs::cluster {

namespace {

// Batch layout: uint32 count, then per rank uint32 index (in the sender's share), uint64 size,
// bytes. A batch is sent once it holds this many bytes (and at the end).
constexpr size_t kBatchBytes = 4 << 20;
// Packed ranks a non-root process queues for its sender at most (cluster/packed_queue.h): with
// the batches in flight (mpi::BatchStream, 4 at most) and the one being filled, what a process
// holds for the root is bounded, whatever the size of its share.
constexpr size_t kQueuedBytes = 2 * kBatchBytes;

void append_packed(io::ByteWriter& batch, PackedRank&& p, uint32_t& count) {
  if (batch.size() == 0) batch.put<uint32_t>(0);  // the count, patched before sending
  batch.put<uint32_t>(p.index);
  batch.put<uint64_t>(p.bytes.size());
  batch.bytes(p.bytes.data(), p.bytes.size());
  ++count;
}

std::vector<char> close_batch(io::ByteWriter& batch, uint32_t& count) {
  std::vector<char> out = std::move(batch.data());
  if (!out.empty()) std::memcpy(out.data(), &count, sizeof count);
  batch = io::ByteWriter();
  count = 0;
  return out;
}

// Parses entries[idx] for idx in `mine` with `threads` workers; results in the same order. With
// `packed`, each rank is packed for the root as soon as it is parsed (pushed with its position
// in `mine`) and its RankData freed, so a non-root process never holds a rank twice.
std::vector<load::RankData> parse_share(std::vector<load::RankEntry>& entries,
                                        const std::vector<size_t>& mine,
                                        const load::ParseOptions& opts, int threads,
                                        std::atomic<int64_t>& done,
                                        std::atomic<uint64_t>& done_bytes, PackedQueue* packed,
                                        bool keep_communication_packed, load::RankSpill* spill,
                                        const std::function<void(const load::RankData&)>& seen) {
  std::vector<load::RankData> out(mine.size());
  auto parse_one = [&](size_t i) {
    runtime::interrupt_checkpoint("load");  // an interrupt stops between ranks
    runtime::prefer_huge_pages();           // this thread's heap (runtime/allocator_tuning.h)
    const load::RankEntry& e = entries[mine[i]];
    try {
      out[i] = load::parse_rank(e, opts);
    } catch (const std::exception& ex) {
      // A reader bug or exhausted memory on one rank must not take the others down.
      load::RankData d;
      d.entry = e;
      d.entry.status = load::RankStatus::kSkipped;
      d.entry.problems.push_back(std::string("internal error while reading: ") + ex.what());
      d.diagnostics.error(e.path, 0, std::string("internal error while reading: ") + ex.what(),
                          "the rank was skipped; please report this with the file");
      out[i] = std::move(d);
    }
    if (seen) seen(out[i]);
    if (packed) {
      io::ByteWriter w;
      load::pack_rank_data(out[i], w);
      packed->push({static_cast<uint32_t>(i), std::move(w.data())});
      out[i] = load::RankData{};
    } else if (spill && spill->on()) {
      spill->park(out[i]);
    } else if (keep_communication_packed) {
      out[i].communication.pack();
      out[i].matrix.pack();
      out[i].operators.pack();
      out[i].host.pack();
    }
    done_bytes += e.bytes;
    ++done;
    entries[mine[i]] = load::RankEntry{};  // the parsed rank holds its own copy
  };
  // Called on the parse thread (load_cluster's `parser`): the MPI thread only services progress
  // messages while this one and threads - 1 more parse.
  runtime::parallel_for(mine.size(), threads, parse_one);
  return out;
}

}  // namespace

LoadedCluster load_cluster(const mpi::MpiSession& mpi, const LoadOptions& opts,
                           runtime::PhaseLog& log) {
  LoadedCluster result;

  // 1. Discover on the root; 2. partition by bytes there and send each process only its share
  // of the list (plus a fatal flag): what leaves the root is one list, whatever the process count,
  // and no other process holds the whole job's list.
  std::vector<load::RankEntry> entries;  // the root: every rank; the others: their share
  std::vector<std::vector<size_t>> shares;
  std::vector<size_t> mine;  // indices into `entries` this process parses
  {
    std::vector<std::vector<char>> parts;
    // The root discovers alone; the others wait for it, watched (mpi/mpi_comm.h, RootAlone).
    std::optional<mpi::MpiSession::RootAlone> alone;
    alone.emplace(mpi, "discover", "discovered the rank directories");
    if (mpi.is_root()) {
      log.begin("discover");
      load::DiscoveryOptions dopts;
      dopts.rank_filter = opts.rank_filter;
      dopts.data_type = opts.data_type;
      load::DiscoveryResult found = opts.discovered ? std::move(*opts.discovered)
                                                    : load::discover_ranks(opts.input_dir, dopts);
      result.diagnostics.append(found.diag);
      result.skipped = std::move(found.skipped);
      result.input_is_rank_dir = found.input_is_rank_dir;
      if (found.fatal || found.ranks.empty()) {
        result.fatal = true;
        if (found.fatal) {
          for (const auto& d : found.diag.items())
            if (d.severity == io::Severity::kError) {
              result.fatal_message = d.to_string();
              break;
            }
        } else {
          result.fatal_message = opts.input_dir +
                                 ": no rank directory with a profiler_info_{N}.json found \u2014 "
                                 "point -d at the directory holding the *_ascend_pt / "
                                 "*_ascend_ms / PROF_* directories";
        }
      }
      entries = std::move(found.ranks);
      if (!result.fatal)
        shares = load::partition_by_bytes(entries, mpi.size(), load::kRootUnpackCost);
      parts.resize(static_cast<size_t>(mpi.size()));
      for (int p = 1; p < mpi.size(); ++p) {
        io::ByteWriter w;
        w.put<uint8_t>(result.fatal);
        w.str(result.fatal_message);
        std::vector<load::RankEntry> share;
        if (!result.fatal)
          for (size_t i : shares[static_cast<size_t>(p)]) share.push_back(entries[i]);
        auto packed = load::pack_rank_entries(share);
        w.bytes(packed.data(), packed.size());
        parts[static_cast<size_t>(p)] = std::move(w.data());
      }
      for (const auto& e : entries) result.input_bytes += e.bytes;
      log.end(std::to_string(entries.size()) + " rank directories, " +
              runtime::human_bytes(result.input_bytes) +
              (result.skipped.empty() ? ""
                                      : ", " + std::to_string(result.skipped.size()) + " skipped"));
    }
    alone.reset();
    std::vector<char> part = mpi.scatter(std::move(parts));
    if (!mpi.is_root()) {
      io::ByteReader r(part);
      result.fatal = r.get<uint8_t>() != 0;
      result.fatal_message = r.str();
      std::vector<char> rest(r.remaining());
      r.bytes(rest.data(), rest.size());
      entries = load::unpack_rank_entries(rest);
      // The share arrives in the order partition_by_bytes lists it (positions in the share are
      // what the root files the parsed ranks by).
      mine.resize(entries.size());
      for (size_t i = 0; i < mine.size(); ++i) mine[i] = i;
    } else if (!result.fatal) {
      mine = shares[0];
      // The other processes' entries went with the scatter; their parsed ranks bring them back.
      for (int p = 1; p < mpi.size(); ++p)
        for (size_t i : shares[static_cast<size_t>(p)]) entries[i] = load::RankEntry{};
    }
    if (result.fatal) return result;
  }

  const int threads = runtime::threads_per_process(opts.threads, mpi.local_size());
  result.threads_per_process = threads;
  result.processes_on_root_node = mpi.local_size();  // the root's value is the one used

  // 3. Parse this process's share on worker threads; the main thread services progress.
  if (mpi.is_root()) log.begin("parse");
  std::atomic<int64_t> done{0};
  std::atomic<uint64_t> done_bytes{0};
  std::vector<load::RankData> parsed;
  const bool keep_packed = opts.keep_communication_packed || opts.spill_communication;
  // Non-root: ranks packed for the root, sent in batches as they come.
  PackedQueue packed(kQueuedBytes);
  mpi::BatchStream stream(mpi);
  // Root: the other processes' ranks, by process and position in its share (the order the
  // one-process run has after the sort by rank, whatever the arrival order).
  std::vector<std::vector<load::RankData>> received(static_cast<size_t>(mpi.size()));
  if (mpi.is_root())
    for (int p = 1; p < mpi.size(); ++p)
      received[static_cast<size_t>(p)].resize(shares[static_cast<size_t>(p)].size());
  bool local_failed = false;
  std::string local_error;
  // The root's spill file for the ranks' parts (LoadOptions::spill_communication).
  load::RankSpill spill;
  if (mpi.is_root() && opts.spill_communication) spill.open();
  // A process other than the root (which discovered the files) names itself in what it could
  // not see or open: without a shared file system that is the whole story.
  load::ParseOptions parse_opts = opts.parse;
  if (!mpi.is_root()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
    parse_opts.process_note = "process " + std::to_string(mpi.rank()) + " on host " + host;
  }
  {
    runtime::ProgressBar bar(mpi.is_root() && opts.show_progress, "parse",
                             static_cast<int64_t>(entries.size()), result.input_bytes);
    std::atomic<bool> finished{false};
    std::mutex finished_mu;  // with finished_cv: the loop below wakes when the parse finishes
    std::condition_variable finished_cv;
    runtime::TaskGroup parser;  // errors are caught inside: they are this process's to report
    // Declared after the parser: however this scope is left, the queue is closed first, so a
    // parse thread waiting for room returns and the parser can be joined.
    PackedQueueCloser close_packed(packed);
    parser.run([&] {
      try {
        parsed =
            parse_share(entries, mine, parse_opts, threads, done, done_bytes,
                        mpi.is_root() ? nullptr : &packed, keep_packed, &spill, opts.on_parsed);
      } catch (const std::exception& e) {
        local_failed = true;
        local_error = e.what();
      }
      std::lock_guard lock(finished_mu);
      finished = true;
      finished_cv.notify_all();
    });
    // Root: unpacks a batch as it arrives (this thread is otherwise idle while parsing runs).
    bool gather_failed = false;
    std::string gather_error;
    auto take_batch = [&](int p, std::vector<char>&& batch) {
      try {
        io::ByteReader r(batch);
        std::vector<load::RankData>& dest = received[static_cast<size_t>(p)];
        const uint32_t n = r.get<uint32_t>();
        for (uint32_t k = 0; k < n; ++k) {
          const uint32_t index = r.get<uint32_t>();
          const auto size = static_cast<size_t>(r.get<uint64_t>());
          io::ByteReader one(r.skip(size), size);
          if (index >= dest.size()) throw std::runtime_error("a rank position is out of range");
          // Each part goes from the batch straight into the spill file when there is one.
          dest[index] = load::unpack_rank_data(one, keep_packed, spill.on() ? &spill : nullptr);
          spill.park(dest[index]);
        }
      } catch (const std::exception& e) {
        gather_failed = true;  // still drain the stream: no process is left waiting
        gather_error =
            "the data of process " + std::to_string(p) + " could not be read (" + e.what() + ")";
      }
    };
    io::ByteWriter batch;  // non-root: the batch being filled
    uint32_t batch_count = 0;
    std::vector<int64_t> per_process;
    std::vector<bool> final_sent;
    std::vector<int64_t> bytes_per_process;
    int64_t last_sent = -1;
    auto last_send = std::chrono::steady_clock::now();
    for (;;) {
      runtime::interrupt_checkpoint("stream");
      bool me_done = finished.load();
      if (mpi.is_root()) {
        int finals = mpi.poll_progress(per_process, final_sent);
        int64_t total = done.load();
        for (int p = 1; p < mpi.size(); ++p) total += per_process[static_cast<size_t>(p)];
        // Bytes of other processes are not sent; estimate from the root's share of the work.
        uint64_t bytes = result.input_bytes * static_cast<uint64_t>(total) /
                         std::max<uint64_t>(1, entries.size());
        bar.update(total, bytes);
        const int ended = stream.poll(take_batch);
        if (me_done && finals == mpi.size() - 1 && ended == mpi.size() - 1) break;
      } else {
        auto now = std::chrono::steady_clock::now();
        int64_t d = done.load();
        // Read after me_done: every rank packed before the parse finished is in the queue.
        for (PackedRank& p : packed.take_all()) {
          append_packed(batch, std::move(p), batch_count);
          if (batch.size() >= kBatchBytes) stream.send(close_batch(batch, batch_count));
        }
        if (me_done) {
          if (batch_count > 0) stream.send(close_batch(batch, batch_count));
          mpi.send_progress(d, true);
          stream.finish();  // returns once the root has every batch
          break;
        }
        // Progress when it changed, and at least every second as a sign of life for the root's
        // watchdog (mpi/mpi_comm.h, BatchStream).
        if ((d != last_sent && now - last_send > std::chrono::milliseconds(200)) ||
            now - last_send > std::chrono::seconds(1)) {
          mpi.send_progress(d, false);
          last_sent = d;
          last_send = now;
        }
      }
      // The next turn in 20 ms, or as soon as this process's parse finishes (not up to 20 ms
      // after: at 256 ranks the whole run takes 0.8 s).
      std::unique_lock lock(finished_mu);
      finished_cv.wait_for(lock, std::chrono::milliseconds(20),
                           [&] { return !me_done && finished.load(); });
    }
    parser.wait();
    bar.finish();
    if (gather_failed && !local_failed) {
      local_failed = true;
      local_error = gather_error;
    }
  }

  // 4. Agree on errors (every batch has been delivered by now): nobody is left waiting.
  if (mpi.any(local_failed, mpi::MpiSession::Arrival::kPrompt)) {
    result.fatal = true;
    result.fatal_message =
        local_failed
            ? "parsing failed on process " + std::to_string(mpi.rank()) + ": " + local_error
            : "parsing failed on another process \u2014 see its message";
    return result;
  }

  // 5. The other processes' ranks arrived while parsing ran; sort everything by rank.
  if (mpi.is_root()) {
    result.spill = spill.file();
    if (const std::string why = spill.problem(); !why.empty())
      result.diagnostics.warn(
          "", 0,
          "the communication ops, matrix, operator tables and host summaries could not be "
          "parked on disk (" +
              why + "): they are held in memory instead",
          "the outputs are the same; a large job needs more memory this way");
    // One vector of the exact size: a RankData is about a kilobyte, and growing the root's own
    // share by push_back would leave up to as much again unused (a vector doubles).
    size_t total = parsed.size();
    for (const auto& share : received) total += share.size();
    result.ranks.reserve(total);
    for (load::RankData& d : parsed) result.ranks.push_back(std::move(d));
    std::vector<load::RankData>().swap(parsed);
    for (auto& share : received) {
      for (load::RankData& d : share) result.ranks.push_back(std::move(d));
      std::vector<load::RankData>().swap(share);
    }
  }
  if (mpi.is_root()) {
    // The received batches and the parsers' buffers are freed: give their pages back before the
    // analyses build their tables.
    runtime::release_freed_memory();
    std::stable_sort(
        result.ranks.begin(), result.ranks.end(),
        [](const load::RankData& a, const load::RankData& b) { return a.rank() < b.rank(); });
    uint64_t bytes = 0;
    for (const auto& d : result.ranks) bytes += d.bytes_read;
    log.end(std::to_string(result.ranks.size()) + " ranks on " + std::to_string(mpi.size()) +
            " process(es) x " + std::to_string(threads) + " thread(s), " +
            runtime::human_bytes(bytes) + " read");
  }
  return result;
}

}  // namespace cs::cluster
