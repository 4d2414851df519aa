#include "timeline/merge_run.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>

#include <simdjson.h>

#include "io/byte_buffer.h"
#include "io/diagnostics_print.h"
#include "io/json/gzip_input.h"
#include "io/json/json_validate.h"
#include "io/json/json_writer.h"
#include "io/text_escape.h"
#include "load/discovery.h"
#include "load/rank_list.h"
#include "runtime/exit_status.h"
#include "timeline/merge_output.h"
#include "timeline/merge_sources.h"
#include "timeline/merge_trace.h"

namespace cs::timeline {

namespace {

// What phase A learns of one timeline, sent to the root.
struct Facts {
  bool ok = false;
  bool align_found = false;
  int64_t align_ns = 0;
  int64_t base_ns = -1;
  int32_t distributed_rank = -1;
};

// What the root decides for every timeline, sent back to all.
struct Decision {
  bool ok = false;
  int64_t shift_ns = 0;
};

// This process's contiguous block [begin, end) of n timelines.
std::pair<size_t, size_t> block_of(size_t n, int proc, int procs) {
  const size_t p = static_cast<size_t>(proc), np = static_cast<size_t>(procs);
  return {n * p / np, n * (p + 1) / np};
}

std::string part_path(const std::string& output, int proc) {
  return output + ".part" + std::to_string(proc) + ".tmp";
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

// Root: shifts from the gathered facts. The reference is the lowest rank that has the thing
// (a base time; the --align event).
// `unaligned`: the timelines --align could not align (said in one warning).
std::vector<Decision> decide(const std::vector<MergeSource>& sources,
                             const std::vector<Facts>& facts, const MergeOptions& opts,
                             int64_t& ref_base, size_t& unaligned, io::Diagnostics& diag) {
  const size_t n = sources.size();
  std::vector<Decision> out(n);
  ref_base = -1;
  for (size_t i = 0; i < n && ref_base < 0; ++i)
    if (facts[i].ok && facts[i].base_ns >= 0) ref_base = facts[i].base_ns;
  std::vector<int64_t> base_shift(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (facts[i].ok && facts[i].base_ns >= 0 && ref_base >= 0)
      base_shift[i] = facts[i].base_ns - ref_base;
  bool have_ref = false;
  int64_t ref_align = 0;
  for (size_t i = 0; i < n && !have_ref; ++i)
    if (facts[i].ok && facts[i].align_found) {
      have_ref = true;
      ref_align = facts[i].align_ns + base_shift[i];
    }
  std::set<int> no_event;  // ranks without the --align event
  for (size_t i = 0; i < n; ++i) {
    out[i].ok = facts[i].ok;
    out[i].shift_ns = base_shift[i];
    if (!facts[i].ok) continue;
    const MergeSource& s = sources[i];
    if (facts[i].distributed_rank >= 0 && facts[i].distributed_rank != s.rank)
      diag.warn(s.path, 0,
                "distributedInfo says rank " + std::to_string(facts[i].distributed_rank) +
                    ", merged as rank " + std::to_string(s.rank) + " (from " +
                    rank_origin_name(s.origin) + ")",
                "check that the file belongs to this job");
    if (opts.align.empty()) continue;
    if (!have_ref || !facts[i].align_found) {
      no_event.insert(s.rank);
      continue;
    }
    out[i].shift_ns += ref_align - (facts[i].align_ns + base_shift[i]);
  }
  unaligned = no_event.size();
  if (!no_event.empty()) {
    size_t read = 0;
    for (const Facts& f : facts) read += f.ok;
    diag.warn(opts.input_dir, 0,
              "--align '" + opts.align + "': " + std::to_string(no_event.size()) + " of " +
                  std::to_string(read) + " timelines have no event whose name contains it (rank" +
                  (no_event.size() == 1 ? " " : "s ") + load::format_rank_set(no_event) +
                  "); their timestamps were not aligned",
              "give --align a name every rank has (e.g. hcom_allReduce or ncclKernel)");
  }
  return out;
}

// Per-timeline result of phase B, packed for the root.
void pack_summary(io::ByteWriter& w, const MergeSource& s, const timeline::TraceScan& scan,
                  const timeline::RankPlan& plan, const timeline::RewriteStats& st, bool ok) {
  w.put<int32_t>(s.rank);
  w.str(s.path);
  w.str(rank_origin_name(s.origin));
  w.put<int64_t>(plan.shift_ns);
  w.str(scan.align_found ? scan.align_event : std::string());
  w.put<uint64_t>(st.events);
  w.put<uint64_t>(st.added_metadata);
  w.put<uint64_t>(st.flow_ids);
  w.put<uint8_t>(ok ? 1 : 0);
  w.put<uint32_t>(static_cast<uint32_t>(scan.processes.size()));
  for (size_t i = 0; i < scan.processes.size(); ++i) {
    w.str(scan.processes[i].pid);
    w.put<int64_t>(plan.new_pid[i]);
  }
}

// Root: one rank's entry of the "clusterscope" member, from a packed summary. Returns ok.
bool unpack_summary_json(io::ByteReader& r, std::string& json, bool first, uint64_t& events) {
  const int32_t rank = r.get<int32_t>();
  const std::string path = r.str(), origin = r.str();
  const int64_t shift = r.get<int64_t>();
  const std::string align_event = r.str();
  const uint64_t n = r.get<uint64_t>(), added = r.get<uint64_t>(), flows = r.get<uint64_t>();
  const bool ok = r.get<uint8_t>() != 0;
  events += n + added;
  if (!first) json += ",\n";
  json += "{\"rank\":" + std::to_string(rank) + ",\"source\":";
  io::append_json_string(json, path, false);
  json += ",\"rank_from\":";
  io::append_json_string(json, origin, false);
  json += ",\"shift_ns\":" + std::to_string(shift);
  // Raw texts from the input (the event's name contents, the pids) only when they are valid JSON.
  if (!align_event.empty() && io::is_valid_json_string_contents(align_event))
    json += ",\"align_event\":\"" + align_event + "\"";
  json += ",\"events\":" + std::to_string(n) + ",\"added_metadata\":" + std::to_string(added) +
          ",\"flow_ids\":" + std::to_string(flows) + ",\"complete\":" + (ok ? "true" : "false") +
          ",\"pids\":[";
  const uint32_t np = r.get<uint32_t>();
  for (uint32_t i = 0; i < np; ++i) {
    const std::string raw = r.str();
    const int64_t pid = r.get<int64_t>();
    json += (i ? ",[" : "[") + (io::is_valid_json_value(raw) ? raw : std::string("null")) + "," +
            std::to_string(pid) + "]";
  }
  json += "]}";
  return ok;
}

}  // namespace

int run_merge(const mpi::MpiSession& mpi, const MergeOptions& opts) {
  const bool root = mpi.is_root();
  MergeSourceOptions sopts;
  sopts.rank_filter = opts.rank_filter;
  sopts.exclude = opts.output;
  MergeSources found = find_merge_sources(opts.input_dir, sopts);
  if (root) io::print_diagnostics(found.diag);
  if (found.fatal)
    return runtime::kExitFatal;  // the same on every process: discovery is deterministic
  const std::vector<MergeSource>& sources = found.sources;
  const auto [begin, end] = block_of(sources.size(), mpi.rank(), mpi.size());

  // Phase A: read every timeline of this block (last first, so the first stays loaded).
  std::vector<timeline::TraceScan> scans(end - begin);
  std::vector<Facts> mine(end - begin);
  std::vector<io::Diagnostics> scan_diag(end - begin);
  simdjson::padded_string text;
  size_t loaded = SIZE_MAX;
  for (size_t i = end; i-- > begin;) {
    io::Diagnostics& d = scan_diag[i - begin];
    Facts& f = mine[i - begin];
    text = simdjson::padded_string();  // free the previous file before reading the next
    if (io::load_json_maybe_gzip(sources[i].path, text, d)) {
      loaded = i;
      f.ok = timeline::scan_trace(text, sources[i].path, opts.align, scans[i - begin], d);
    } else {
      loaded = SIZE_MAX;
    }
    const timeline::TraceScan& s = scans[i - begin];
    f.align_found = s.align_found;
    f.align_ns = s.align_ns;
    f.base_ns = s.base_time_ns;
    f.distributed_rank = s.distributed_rank;
  }
  for (const io::Diagnostics& d : scan_diag) io::print_diagnostics(d);  // in rank order
  io::ByteWriter facts_out;
  for (const Facts& f : mine) {
    facts_out.put<uint8_t>(f.ok);
    facts_out.put<uint8_t>(f.align_found);
    facts_out.put<int64_t>(f.align_ns);
    facts_out.put<int64_t>(f.base_ns);
    facts_out.put<int32_t>(f.distributed_rank);
  }
  std::vector<std::vector<char>> gathered = mpi.gather_to_root(facts_out.data());
  std::vector<char> decided;
  int64_t ref_base = -1;
  size_t unaligned = 0;  // root: timelines --align could not align
  if (root) {
    std::vector<Facts> facts;
    for (const auto& buf : gathered) {
      io::ByteReader r(buf);
      while (!r.done()) {
        Facts f;
        f.ok = r.get<uint8_t>() != 0;
        f.align_found = r.get<uint8_t>() != 0;
        f.align_ns = r.get<int64_t>();
        f.base_ns = r.get<int64_t>();
        f.distributed_rank = r.get<int32_t>();
        facts.push_back(f);
      }
    }
    io::Diagnostics d;
    std::vector<Decision> dec = decide(sources, facts, opts, ref_base, unaligned, d);
    io::print_diagnostics(d);
    io::ByteWriter w;
    w.put<int64_t>(ref_base);
    for (const Decision& x : dec) {
      w.put<uint8_t>(x.ok);
      w.put<int64_t>(x.shift_ns);
    }
    decided = std::move(w.data());
  }
  mpi.broadcast(decided);
  std::vector<Decision> decisions(sources.size());
  {
    io::ByteReader r(decided);
    ref_base = r.get<int64_t>();
    for (Decision& x : decisions) {
      x.ok = r.get<uint8_t>() != 0;
      x.shift_ns = r.get<int64_t>();
    }
  }
  size_t usable = 0;
  for (const Decision& x : decisions) usable += x.ok;
  if (usable == 0) {
    if (root)
      std::fprintf(stderr,
                   "clusterscope: %s: no timeline could be read \u2014 see the errors above\n",
                   opts.input_dir.c_str());
    return runtime::kExitFatal;
  }

  // Phase B: stream the rewritten events.
  const std::string tmp = root ? opts.output + ".tmp" : part_path(opts.output, mpi.rank());
  timeline::MergeOutput out;
  std::string error;
  bool write_ok = out.open(tmp, root && timeline::wants_gzip(opts.output), error);
  bool first_pending = root;  // the first event of the whole file has no leading comma
  auto sink = [&](std::string_view chunk) {
    if (first_pending && !chunk.empty()) {
      chunk.remove_prefix(1);
      first_pending = false;
    }
    out.write(chunk);
  };
  if (write_ok && root)
    out.write("{\"otherData\":{\"merged_by\":\"clusterscope merge\"},\"traceEvents\":[");
  io::ByteWriter summary;
  uint32_t failed_rewrites = 0;
  for (size_t i = begin; i < end && write_ok; ++i) {
    if (!decisions[i].ok) continue;
    io::Diagnostics d;
    if (loaded != i) {
      text = simdjson::padded_string();
      if (!io::load_json_maybe_gzip(sources[i].path, text, d)) {
        io::print_diagnostics(d);
        ++failed_rewrites;
        loaded = SIZE_MAX;
        continue;
      }
    }
    loaded = i;
    const timeline::TraceScan& scan = scans[i - begin];
    timeline::RankPlan plan = timeline::plan_rank(scan, sources[i].rank, decisions[i].shift_ns);
    timeline::RewriteStats st;
    const bool ok = timeline::rewrite_trace(text, sources[i].path, scan, plan, sink, st, d);
    if (!ok) ++failed_rewrites;
    io::print_diagnostics(d);
    pack_summary(summary, sources[i], scan, plan, st, ok);
  }
  text = simdjson::padded_string();
  if (!root && write_ok && !out.close(error)) write_ok = false;
  if (!write_ok)
    std::fprintf(stderr, "clusterscope: %s: %s \u2014 check the output directory (space, rights)\n",
                 tmp.c_str(), error.c_str());

  io::ByteWriter report_out;
  report_out.put<uint8_t>(write_ok);
  report_out.put<uint32_t>(failed_rewrites);
  report_out.bytes(summary.data().data(), summary.size());
  std::vector<std::vector<char>> reports = mpi.gather_to_root(report_out.data());

  std::vector<char> status(1, 0);
  // The root writes the merged file alone; the others wait for it, watched (mpi/mpi_comm.h).
  std::optional<mpi::MpiSession::RootAlone> alone;
  alone.emplace(mpi, "merge-write", "wrote the merged timeline");
  if (root) {
    bool all_written = write_ok;
    uint32_t failed = 0;
    std::string ranks_json;
    uint64_t events = 0;
    size_t merged = 0, complete = 0;
    for (size_t p = 0; p < reports.size(); ++p) {
      io::ByteReader r(reports[p]);
      all_written &= r.get<uint8_t>() != 0;
      failed += r.get<uint32_t>();
      while (!r.done()) {
        const bool ok = unpack_summary_json(r, ranks_json, merged++ == 0, events);
        complete += ok;
        failed += !ok;
      }
    }
    // The other processes' parts, in process (= rank) order.
    for (int p = 1; p < mpi.size(); ++p) {
      const std::string part = part_path(opts.output, p);
      std::error_code ec;
      const auto size = std::filesystem::file_size(part, ec);
      if (all_written && !ec && size > 0) {
        all_written = out.append_file(part, first_pending ? 1 : 0, error);
        first_pending = false;
      }
      remove_quietly(part);
    }
    if (all_written) {
      std::string tail = "\n],";
      if (ref_base >= 0) tail += "\"baseTimeNanoseconds\":" + std::to_string(ref_base) + ",";
      tail += "\"clusterscope\":{\"merge\":{\"align\":";
      if (opts.align.empty()) {
        tail += "null";
      } else {
        io::append_json_string(tail, opts.align, false);
      }
      tail += ",\"pid_stride\":" + std::to_string(timeline::kPidStride) +
              ",\"flow_id_stride\":" + std::to_string(timeline::kFlowIdStride) + ",\"ranks\":[\n";
      out.write(tail);
      out.write(ranks_json);
      out.write("\n]}}}\n");
      all_written = out.close(error);
      if (!all_written)
        std::fprintf(stderr,
                     "clusterscope: %s: %s \u2014 check the output directory (space, rights)\n",
                     tmp.c_str(), error.c_str());
    } else {
      out.close(error);
    }
    std::error_code ec;
    if (all_written) std::filesystem::rename(tmp, opts.output, ec);
    if (all_written && ec) {
      std::fprintf(stderr, "clusterscope: %s: cannot rename to %s: %s \u2014 check the rights\n",
                   tmp.c_str(), opts.output.c_str(), ec.message().c_str());
      all_written = false;
    }
    if (!all_written) remove_quietly(tmp);
    int code = runtime::kExitOk;
    if (!all_written) {
      code = runtime::kExitFatal;
    } else {
      code = (failed > 0 || found.skipped > 0 || merged < sources.size() || unaligned > 0)
                 ? runtime::kExitPartial
                 : runtime::kExitOk;
      if (!opts.quiet)
        std::printf("clusterscope: merged %zu of %zu timelines (%llu events) into %s\n", complete,
                    sources.size() + static_cast<size_t>(found.skipped),
                    static_cast<unsigned long long>(events), io::escape_text(opts.output).c_str());
    }
    status[0] = static_cast<char>(code);
  }
  alone.reset();
  mpi.broadcast(status);
  return status[0];
}

}  // namespace cs::timeline
