#pragma once
// report.html of `clusterscope cluster`: one self-contained page (inline CSS, SVG and a small
// script, nothing fetched) drawn from the result tables only — this library does not know how they
// were computed. Any table may be null: its section then says "not computed in this mode".
//
//   ClusterReportInput in;
//   in.manifest = &manifest; in.step_trace = &steps; ... in.seconds = 12.5;
//   io::Diagnostics diag;
//   write_cluster_report_html(in, out_dir + "/report.html", diag);
//
// Large clusters stay readable and small: every rank keeps a point in the sorted curves and a cell
// in the rank x step heatmap (canvas); beyond 256 ranks the per-rank bar charts show buckets of
// consecutive ranks (mean parts, min/median/max whiskers); matrix heatmaps are binned to at most
// 64 x 64 cells and only the most relevant groups are drawn, any group can be picked.

#include <cstdint>
#include <memory>
#include <string>

#include "io/byte_buffer.h"
#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::report {

// The communication matrix reduced to what the report draws: per communication group, its links
// summed over the chosen op keys, its ranks and transports, and how many of its links are slow.
// A few MB where the communication_matrix table is tens of MB, so the caller can write and free
// that table as soon as it is built (see digest_matrix).
struct MatrixDigest;

struct ClusterReportInput {
  const io::Table* manifest = nullptr;                // rank_manifest
  const io::Table* step_trace = nullptr;              // step_trace
  const io::Table* communication_matrix = nullptr;    // communication_matrix
  std::shared_ptr<const MatrixDigest> matrix_digest;  // used instead when set
  const io::Table* comm_rank_summary = nullptr;  // per (group, rank): wait_ratio, sync_ratio...
  // Each rank's transit_ms, wait_ms and sync_ms summed over comm_rank_summary's rows (one row per
  // rank): read instead of that table's times when set (the table is then a digest of its group
  // and rank columns: analysis/comm_summary_stream.h, CommRankDigest).
  const io::Table* comm_rank_totals = nullptr;
  const io::Table* operators_topn = nullptr;  // operators_topn
  const io::Table* slow_ranks = nullptr;      // slow_ranks
  const io::Table* slow_links = nullptr;      // slow_links
  // msprof-analyze's recipes beside the findings (analysis/recipe_agreement.h); null: none ran.
  const io::Table* recipe_agreement = nullptr;
  // Memory (memory/): null when no rank was profiled with profile_memory (no section then).
  const io::Table* memory_ranks = nullptr;
  const io::Table* memory_steps = nullptr;
  const io::Table* memory_curves = nullptr;
  const io::Table* memory_findings = nullptr;
  const io::Table* host_ops = nullptr;        // host_ops (docs/host.md)
  const io::Table* free_breakdown = nullptr;  // free_breakdown
  const io::Table* host_rank_ops = nullptr;   // each rank's host-heaviest operators
  std::string input_path;                     // the analysed directory
  int processes = 1;                          // MPI processes used
  double seconds = 0;                         // wall time of the analysis
  uint64_t input_bytes = 0;                   // bytes read
  std::string summary_text;                   // the closing summary, shown as is
};

// The digest summed a chunk of communication_matrix's rows at a time, so the table is never held
// whole (it is streamed: analysis/comm_matrix_table.h). The same digest as digest_matrix() of the
// chunks' rows together when each (group, src, dst)'s rows come in the same order across them.
class MatrixDigestBuilder {
 public:
  MatrixDigestBuilder();
  ~MatrixDigestBuilder();
  MatrixDigestBuilder(const MatrixDigestBuilder&) = delete;
  MatrixDigestBuilder& operator=(const MatrixDigestBuilder&) = delete;
  // Adds the rows of one chunk (communication_matrix's columns).
  void add(const io::Table& rows);
  // The digest, links judged slow taken from `slow_links` (may be null). Once, after the last add.
  std::shared_ptr<const MatrixDigest> finish(const io::Table* slow_links);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The digest of `communication_matrix`, with links judged slow taken from `slow_links` (may be
// null). The matrix section drawn from it is the one drawn from the two tables.
std::shared_ptr<const MatrixDigest> digest_matrix(const io::Table& communication_matrix,
                                                  const io::Table* slow_links);

// The page as a string. Never throws on odd tables (missing columns, NaN, empty tables).
std::string render_cluster_report_html(const ClusterReportInput& in);

// The digest as bytes, and back (the same digest, bit for bit): it can wait on disk until the
// page is drawn. unpack throws std::runtime_error when the bytes are damaged or cut short.
void pack_matrix_digest(const MatrixDigest& d, io::ByteWriter& w);
std::shared_ptr<const MatrixDigest> unpack_matrix_digest(io::ByteReader& r);

// Renders and writes `path` (through a temporary file and a rename). Returns false with an error
// in `diag` when the file cannot be written.
bool write_cluster_report_html(const ClusterReportInput& in, const std::string& path,
                               io::Diagnostics& diag);

}  // namespace cs::report
