// generate_cluster: validate, simulate, write one rank directory per rank and truth.json.
#include "generator/generator.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>

#include "generator/db_export/db_writers.h"
#include "generator/db_export/producer_db.h"
#include "generator/db_export/write_nsys_sqlite.h"
#include "generator/job/memory_model.h"
#include "generator/job/simulation.h"
#include "generator/job/topology.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

bool make_dirs(const std::string& path, io::Diagnostics& diag) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    diag.error(path, 0, "cannot create directory: " + ec.message(),
               "check that the output path is writable");
    return false;
  }
  return true;
}

// One CANN msprof PROF_ directory (writers.h, docs/formats.md §1b); `put` writes one file.
template <class Put>
bool write_prof_dir(const std::string& dir, const WriteContext& ctx, int rank,
                    const RankTimeline& tl, Put& put, io::Diagnostics& diag) {
  const std::string device = std::to_string(rank % kDevicesPerNode);
  const std::string out = dir + "/mindstudio_profiler_output", analyze = dir + "/analyze";
  // msprof_{14 digits}.json: the export's local time, YYYYMMDDhhmmss; op_statistic_ shares it.
  const std::string stamp = "20240101" + std::to_string(120000 + rank % 60);
  const std::string timeline = out + "/msprof_" + stamp + ".json";
  const std::string op_statistic = out + "/op_statistic_" + stamp + ".csv";
  return make_dirs(dir + "/device_" + device, diag) && make_dirs(out, diag) &&
         make_dirs(analyze, diag) &&
         put(dir + "/device_" + device + "/info.json." + device,
             render_msprof_info_json(ctx, rank)) &&
         put(timeline, render_msprof_timeline_json(ctx, rank, tl)) &&
         put(op_statistic, render_msprof_op_statistic_csv(ctx, rank, tl)) &&
         put(analyze + "/communication.json", render_msprof_communication_json(ctx, rank, tl)) &&
         put(analyze + "/communication_matrix.json", render_msprof_matrix_json(ctx, rank, tl));
}

}  // namespace

bool generate_cluster(const std::string& out_dir, const GeneratorOptions& opts,
                      io::Diagnostics& diag, GenerateSummary* summary) {
  auto t0 = std::chrono::steady_clock::now();
  if (!validate_options(opts, diag)) return false;
  if (!make_dirs(out_dir, diag)) return false;

  const Topology topo = build_topology(opts.ranks, opts.tp, opts.pp, opts.seed);
  SimulationResult sim = simulate(opts, topo);
  const WriteContext ctx{opts, topo, sim.base_us};

  GenerateSummary s;
  s.ranks = topo.ranks;
  s.tp = topo.tp;
  s.pp = topo.pp;
  s.dp = topo.dp;
  s.steps = opts.steps;
  auto put = [&](const std::string& path, const std::string& text) {
    if (!write_text_file(path, text, diag)) return false;
    ++s.files;
    s.bytes += text.size();
    return true;
  };
  auto put_db = [&](const std::string& path, auto&& write) {
    if (!write(path)) return false;
    ++s.files;
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (!ec) s.bytes += size;
    return true;
  };

  // --nsys-sqlite: the job's GPU twin, one file for every rank (write_nsys_sqlite.h).
  std::optional<NsysSqliteWriter> nsys;
  if (!opts.nsys_sqlite.empty() && !nsys.emplace().create(opts.nsys_sqlite, diag)) return false;
  for (int r = 0; r < topo.ranks; ++r) {
    RankTimeline& tl = sim.ranks[static_cast<size_t>(r)];
    const std::string dir = out_dir + "/" + rank_dir_name(ctx, r);
    if (opts.framework == FrameworkKind::kKineto) {  // a GPU job: one trace file per rank
      if (!put(out_dir + "/rank-" + std::to_string(r) + ".json",
               render_kineto_trace_json(ctx, r, tl)))
        return false;
      tl = RankTimeline{};
      continue;
    }
    if (opts.framework == FrameworkKind::kMsprof) {
      if (opts.writes_text() && !write_prof_dir(dir, ctx, r, tl, put, diag)) return false;
      if (opts.writes_db() &&  // generator/db_export/producer_db.h
          !write_msprof_db_files(dir, ctx, r, tl, !opts.writes_text(), put, put_db, diag))
        return false;
      tl = RankTimeline{};
      continue;
    }
    const std::string out = dir + "/ASCEND_PROFILER_OUTPUT";
    if (!make_dirs(out, diag)) return false;
    // profiler_info and profiler_metadata.json are written at collection time, whatever the
    // export type (msprof-analyze reads distributed_args from the JSON file only).
    bool ok = put(dir + "/profiler_info_" + std::to_string(r) + ".json",
                  render_profiler_info_json(ctx, r)) &&
              put(dir + "/profiler_metadata.json", render_profiler_metadata_json(ctx, r));
    if (ok && opts.writes_text()) {
      ok = put(out + "/kernel_details.csv", render_kernel_details_csv(ctx, r, tl)) &&
           put(out + "/op_statistic.csv", render_op_statistic_csv(ctx, r, tl)) &&
           (!opts.writes_trace_view() ||
            (put(out + "/trace_view.json", render_trace_view_json(ctx, r, tl)) &&
             put(out + "/operator_details.csv", render_operator_details_csv(ctx, r, tl)) &&
             put(out + "/api_statistic.csv", render_api_statistic_csv(ctx, r, tl))));
    }
    RankDocuments docs{render_communication_json(ctx, r, tl), render_matrix_json(ctx, r, tl),
                       render_step_trace_csv(ctx, r, tl)};
    if (ok && opts.writes_text()) {
      ok = put(out + "/communication.json", docs.communication) &&
           put(out + "/communication_matrix.json", docs.matrix) &&
           put(out + "/step_trace_time.csv", docs.step_trace);
    }
    if (ok && opts.writes_text() && opts.writes_memory()) {  // generator/job/memory_model.h
      const MemoryTrace mem = simulate_memory(ctx, r, tl);
      ok = put(out + "/operator_memory.csv", render_operator_memory_csv(mem)) &&
           put(out + "/memory_record.csv", render_memory_record_csv(mem)) &&
           put(out + "/npu_module_mem.csv", render_npu_module_mem_csv(mem));
    }
    if (ok && opts.writes_db() && opts.framework == FrameworkKind::kMindSpore) {
      ok = write_mindspore_db_files(dir, ctx, r, tl, docs, put, put_db, diag);  // producer_db.h
    } else if (ok && opts.writes_db()) {
      std::vector<HostOpSpan> host_ops;
      // --mfu-flops: the chip's DeviceInfo where torch_npu keeps it, in msprof's PROF_ directory
      // inside the rank's (device_{id}/info.json.{id}).
      if (opts.mfu_flops) {
        GeneratorOptions as_msprof = opts;
        as_msprof.framework = FrameworkKind::kMsprof;
        const std::string device = std::to_string(r % kDevicesPerNode);
        const std::string dev_dir = dir + "/" +
                                    rank_dir_name(WriteContext{as_msprof, topo, sim.base_us}, r) +
                                    "/device_" + device;
        ok = make_dirs(dev_dir, diag) &&
             put(dev_dir + "/info.json." + device, render_msprof_info_json(ctx, r));
      }
      ok = ok &&
           put_db(out + "/analysis.db",
                  [&](const std::string& p) { return write_analysis_db(p, docs, diag); }) &&
           put_db(out + "/ascend_pytorch_profiler_" + std::to_string(r) + ".db",
                  [&](const std::string& p) {
                    return write_profiler_db(p, ctx, r, tl, diag, nsys ? &host_ops : nullptr);
                  });
      if (ok && nsys) nsys->add_rank(r, host_ops, tl);
    }
    if (!ok) return false;
    tl = RankTimeline{};  // release this rank's events early
  }
  if (nsys && !put_db(opts.nsys_sqlite, [&](const std::string&) { return nsys->finish(diag); }))
    return false;
  if (!put(out_dir + "/truth.json", render_truth_json(ctx))) return false;

  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (summary) *summary = s;
  return true;
}

}  // namespace cs::generator
