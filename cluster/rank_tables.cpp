#include "cluster/rank_tables.h"

#include <cstdint>
#include <utility>

#include "host/host_tables.h"
#include "io/csv/csv_collective.h"
#include "io/hdf5/hdf5_collective_table.h"
#include "load/manifest.h"
#include "memory/cluster_memory.h"

namespace cs::cluster {

namespace {

// Block keys: parsed ranks in rank order (a rank may be negative), then the skipped directories
// in discovery order.
uint64_t rank_key(int rank) {
  return static_cast<uint64_t>(static_cast<int64_t>(rank) + (int64_t{1} << 40));
}
constexpr uint64_t kSkippedKey = uint64_t{1} << 62;

// `src`'s rows appended to `dst` (the same columns).
void append_rank_rows(io::Table& dst, const io::Table& src) {
  for (size_t k = 0; k < dst.columns.size(); ++k) {
    io::Column& d = dst.columns[k];
    const io::Column& s = src.columns[k];
    switch (s.type) {
      case io::ColumnType::kString:
        for (size_t i = 0; i < s.size(); ++i) d.strings.emplace_back(s.str(i));
        break;
      case io::ColumnType::kInt:
        d.ints.insert(d.ints.end(), s.ints.begin(), s.ints.end());
        break;
      case io::ColumnType::kDouble:
        d.doubles.insert(d.doubles.end(), s.doubles.begin(), s.doubles.end());
        break;
    }
  }
}

// `schema`'s columns with no rows (plain string columns).
io::Table empty_like(const io::Table& schema) {
  io::Table t(schema.name);
  for (const io::Column& c : schema.columns) {
    io::Column& e = t.columns.emplace_back();
    e.name = c.name;
    e.unit = c.unit;
    e.type = c.type;
  }
  return t;
}

// The memory tables of `refs` (one rank, or none for the columns alone).
std::vector<io::Table> memory_tables(const std::vector<memory::RankMemoryRef>& refs) {
  std::vector<io::Table> out;
  out.push_back(memory::memory_steps_table(refs));
  out.push_back(memory::memory_components_table(refs));
  out.push_back(memory::memory_curves_table(refs));
  return out;
}

}  // namespace

void RankTables::append(const std::string& name, const io::Table& one, int rank) {
  auto [it, added] = tables_.try_emplace(name);
  if (added) it->second.rows = empty_like(one);
  if (one.rows() == 0) return;
  append_rank_rows(it->second.rows, one);
  it->second.blocks.push_back({rank_key(rank), one.rows()});
}

void RankTables::add(const load::RankData& rank) {
  // build_manifest_table takes the ranks as a vector: this one alone, with what the manifest
  // reads of it (its entry and counts), not its data.
  std::vector<load::RankData> alone(1);
  alone[0].entry = rank.entry;
  alone[0].files_read = rank.files_read;
  alone[0].bytes_read = rank.bytes_read;
  const io::Table manifest = load::build_manifest_table(alone, {});
  std::vector<io::Table> memory, host;
  if (diagnosis_ && rank.memory) memory = memory_tables({{rank.rank(), -1, &*rank.memory}});
  if (diagnosis_ && rank.has_host) {
    host::HostSummary scratch;  // filled only when the summary is packed or spilled
    host.push_back(host::free_breakdown_table({{rank.rank(), &rank.host.read(scratch)}}));
  }
  std::lock_guard<std::mutex> lock(mu_);
  append(manifest.name, manifest, rank.rank());
  for (const io::Table& t : memory) append(t.name, t, rank.rank());
  for (const io::Table& t : host) append(t.name, t, rank.rank());
}

std::vector<io::Table> RankTables::tables_to_write(const io::Collective& coll) const {
  // Every table some process has rows of (the root's rule: a memory or host table when any rank
  // has such data), in a fixed order; the manifest always.
  std::vector<io::Table> schemas = {load::build_manifest_table({}, {})};
  if (diagnosis_) {
    for (io::Table& t : memory_tables({})) schemas.push_back(std::move(t));
    schemas.push_back(host::free_breakdown_table(std::vector<host::RankSummary>{}));
  }
  std::vector<uint64_t> present;
  for (const io::Table& s : schemas) present.push_back(tables_.count(s.name) ? 1u : 0u);
  present = coll.all_max(present);
  std::vector<io::Table> out;
  for (size_t k = 0; k < schemas.size(); ++k)
    if (k == 0 || present[k] != 0) out.push_back(std::move(schemas[k]));
  return out;
}

RankTables::Rows RankTables::rows_of(const io::Table& schema,
                                     const std::vector<load::RankEntry>& skipped, bool take) {
  Rows mine;
  const auto it = tables_.find(schema.name);
  if (it == tables_.end())
    mine.rows = empty_like(schema);
  else if (take)
    mine = std::move(it->second);
  else
    mine = it->second;
  if (schema.name == "rank_manifest" && !skipped.empty()) {
    append_rank_rows(mine.rows, load::build_manifest_table({}, skipped));
    for (size_t i = 0; i < skipped.size(); ++i) mine.blocks.push_back({kSkippedKey + i, 1});
  }
  return mine;
}

std::set<std::string> RankTables::write_csv(const std::string& dir, const io::Collective& coll,
                                            const std::vector<load::RankEntry>& skipped,
                                            io::Diagnostics& diag) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> written;
  for (const io::Table& schema : tables_to_write(coll)) {
    // The rows as kept (write() hands them to the HDF5 file next), or a copy with the skipped
    // directories' manifest rows after them.
    const auto it = tables_.find(schema.name);
    const bool as_kept =
        it != tables_.end() && !(schema.name == "rank_manifest" && !skipped.empty());
    const Rows copy = as_kept ? Rows{} : rows_of(schema, skipped, /*take=*/false);
    const Rows& mine = as_kept ? it->second : copy;
    if (io::write_table_csv_collective(mine.rows, mine.blocks, dir + "/" + schema.name + ".csv",
                                       coll, diag))
      written.insert(schema.name);
  }
  return written;
}

std::set<std::string> RankTables::write(io::Hdf5File& h5,
                                        const std::vector<load::RankEntry>& skipped,
                                        io::Diagnostics& diag) {
  std::lock_guard<std::mutex> lock(mu_);
  const io::Hdf5Collective* coll = h5.collective();
  std::set<std::string> written;
  for (const io::Table& schema :
       tables_to_write(coll ? static_cast<const io::Collective&>(*coll) : io::solo_collective())) {
    const Rows mine = rows_of(schema, skipped, /*take=*/true);
    if (io::write_table_collective(h5, mine.rows, mine.blocks, diag) ==
        io::Hdf5CollectiveWrite::kWritten)
      written.insert(schema.name);
  }
  tables_.clear();
  return written;
}

}  // namespace cs::cluster
