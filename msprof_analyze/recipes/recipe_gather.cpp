#include "msprof_analyze/recipes/recipe_gather.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "frame/frame_codec.h"
#include "io/byte_buffer.h"
#include "runtime/ordered_parallel.h"

namespace cs::recipes {

namespace {

// A batch is sent once it holds about 4 MB (and at the end). Its records: uint8 kind, then a
// rank's results (kRank) or the sender's query path counts (kPaths, the last record).
constexpr uint8_t kRank = 1, kPaths = 2;

// CS_RECIPE_GATHER_BYTES=N (tests): batches of about N bytes (1: one rank per batch).
size_t batch_bytes() {
  if (const char* n = std::getenv("CS_RECIPE_GATHER_BYTES"); n && std::atol(n) > 0)
    return static_cast<size_t>(std::atol(n));
  return size_t{4} << 20;
}

// One rank's results of every recipe, packed for the root (each recipe's after the one before).
void pack_rank(const MappedRank& m, io::ByteWriter& w) {
  w.put<uint8_t>(kRank);
  for (size_t k = 0; k < m.parts.size(); ++k) {
    const RankPartial& part = m.parts[k];
    w.put<int32_t>(part.rank);
    w.put<uint8_t>(part.used);
    w.put<uint32_t>(static_cast<uint32_t>(m.diag[k].items().size()));
    for (const auto& d : m.diag[k].items()) {
      w.put<uint8_t>(d.severity == io::Severity::kError);
      w.str(d.file);
      w.put<int64_t>(d.line);
      w.put<int64_t>(d.offset);
      w.str(d.what);
      w.str(d.hint);
    }
    frame::pack_frame_set(part.frames, w);
  }
}

// One recipe's results of a rank that pack_rank wrote, read from `r` onwards.
void unpack_part(io::ByteReader& r, GatheredRecipe& out, const TakePart& on_take, size_t k) {
  RankPartial p;
  p.rank = r.get<int32_t>();
  p.used = r.get<uint8_t>() != 0;
  const auto nd = r.get<uint32_t>();
  for (uint32_t k = 0; k < nd; ++k) {
    io::Diagnostic d;
    d.severity = r.get<uint8_t>() != 0 ? io::Severity::kError : io::Severity::kWarning;
    d.file = r.str();
    d.line = r.get<int64_t>();
    d.offset = r.get<int64_t>();
    d.what = r.str();
    d.hint = r.str();
    out.messages.emplace_back(p.rank, std::move(d));
  }
  p.frames = frame::unpack_frame_set(r);
  if (on_take) on_take(k, p);
  out.parts.push_back(std::move(p));
}

// A rank's results as the root uses them, without a pack/unpack round trip (its own ranks).
void take_rank(MappedRank& m, std::vector<GatheredRecipe>& all, const TakePart& on_take) {
  for (size_t k = 0; k < all.size(); ++k) {
    for (const auto& d : m.diag[k].items()) all[k].messages.emplace_back(m.parts[k].rank, d);
    if (on_take) on_take(k, m.parts[k]);
    all[k].parts.push_back(std::move(m.parts[k]));
  }
}

std::vector<char> take_batch(io::ByteWriter& w) {
  std::vector<char> out = std::move(w.data());
  w = io::ByteWriter();
  return out;
}

}  // namespace

std::vector<GatheredRecipe> gather_mapped(const mpi::MpiSession& mpi, size_t recipes,
                                          size_t share_size, int threads, const MapInShare& map,
                                          QueryPathCounts& paths, const TakePart& on_take) {
  std::vector<GatheredRecipe> all(mpi.is_root() ? recipes : 0);
  std::vector<MappedRank> mapped(share_size);  // each slot filled, then emptied once emitted
  mpi::BatchStream stream(mpi, "while the processes sent their results to the root");
  std::string broken;  // root: why a batch could not be read (the stream is still drained)
  auto take = [&](int p, std::vector<char>&& batch) {
    if (!broken.empty()) return;
    try {
      io::ByteReader r(batch);
      while (!r.done()) {
        const auto kind = r.get<uint8_t>();
        if (kind == kPaths) {
          add_query_paths(paths, unpack_query_paths(r));
        } else if (kind == kRank) {
          for (size_t k = 0; k < all.size(); ++k) unpack_part(r, all[k], on_take, k);
        } else {
          throw std::runtime_error("a record of unknown kind");
        }
      }
    } catch (const std::exception& e) {
      broken = "the map results of process " + std::to_string(p) + " could not be read (" +
               e.what() + ")";
    }
  };
  io::ByteWriter batch;  // non-root: the batch being filled
  const size_t send_at = batch_bytes();
  // A non-root also sends what it has once a second: the root's watchdog hears from it while it
  // maps (mpi/mpi_comm.h, BatchStream).
  auto last_send = std::chrono::steady_clock::now();
  runtime::ordered_parallel_for(
      share_size, threads, [&](size_t i) { map(i, mapped[i]); },
      [&](size_t i) {
        if (mpi.is_root()) {
          take_rank(mapped[i], all, on_take);
          stream.poll(take);  // the others' batches as they come, between the root's own ranks
        } else {
          pack_rank(mapped[i], batch);
          const auto now = std::chrono::steady_clock::now();
          if (batch.size() >= send_at || now - last_send > std::chrono::seconds(1)) {
            stream.send(take_batch(batch));
            last_send = now;
          }
        }
        mapped[i] = MappedRank{};
      });
  mapped.clear();
  if (mpi.is_root()) {
    add_query_paths(paths, take_query_paths());
    while (stream.poll(take) < mpi.size() - 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!broken.empty()) throw std::runtime_error(broken);
  } else {
    paths = take_query_paths();
    batch.put<uint8_t>(kPaths);
    pack_query_paths(paths, batch);
    stream.send(take_batch(batch));
    stream.finish();  // returns once the root has every batch
  }
  return all;
}

}  // namespace cs::recipes
