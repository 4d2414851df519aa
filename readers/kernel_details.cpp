// kernel_details.csv and op_statistic.csv readers (docs/formats.md §4). Columns are looked up by
// header name, so chip-specific counter columns, their order and their presence do not matter.

#include "readers/kernel_details.h"

#include <cmath>
#include <limits>
#include <utility>

#include "io/csv/csv_cells.h"
#include "io/csv/csv_reader.h"

namespace cs::readers {

namespace {

// What the header has, without its text (a file linked in by mistake may hold secrets).
std::string header_shape(const io::CsvReader& r) {
  return "the header on line 1 has " + std::to_string(r.header().size()) + " column(s)";
}

bool stream_kernels(io::CsvReader& r, const std::function<void(const KernelRecord&)>& on_row,
                    io::Diagnostics& diag) {
  const int c_step = r.column("Step Id");
  const int c_name = r.column("Name");
  const int c_type = r.column("Type");
  const int c_core = r.column("Accelerator Core");
  const int c_start = r.column("Start Time(us)");
  const int c_dur = r.column("Duration(us)");
  const int c_wait = r.column("Wait Time(us)");
  const int c_in_shapes = r.column("Input Shapes");
  const int c_in_dtypes = r.column("Input Data Types");
  const int c_out_shapes = r.column("Output Shapes");
  const int c_in_formats = r.column("Input Formats");
  const int c_out_formats = r.column("Output Formats");
  const int c_aicore = r.column("aicore_time(us)");
  const int c_aiv = r.column("aiv_time(us)");
  if (c_name < 0 || c_dur < 0) {
    diag.error(r.path(), 1,
               std::string("no \"") + (c_name < 0 ? "Name" : "Duration(us)") +
                   "\" column: " + header_shape(r),
               "this does not look like a kernel_details.csv; check the file", 0);
    return false;
  }

  io::CsvCells cells(r, diag);
  io::CsvRow row;
  KernelRecord k;
  while (r.next(row)) {
    io::NumberStatus s = cells.status(row, c_dur, k.duration_us);
    if (s != io::NumberStatus::kOk) {
      cells.report(row, c_dur, s, "the kernel row was skipped");
      continue;
    }
    k.line = row.line;
    k.step_id = -1;
    if (c_step >= 0 && !io::parse_int(row[c_step], k.step_id)) {
      double ignored = 0;
      if (io::parse_number_status(row[c_step], ignored) != io::NumberStatus::kMissing) {
        cells.report(row, c_step, io::NumberStatus::kInvalid,
                     "the row was kept without a step (-1)");
      }
      k.step_id = -1;
    }
    k.name = io::trim(row[c_name]);
    k.type = io::trim(row[c_type]);
    k.accelerator_core = io::trim(row[c_core]);
    k.input_shapes = io::strip_quotes(row[c_in_shapes]);
    k.input_dtypes = io::strip_quotes(row[c_in_dtypes]);
    k.output_shapes = io::strip_quotes(row[c_out_shapes]);
    k.input_formats = io::strip_quotes(row[c_in_formats]);
    k.output_formats = io::strip_quotes(row[c_out_formats]);
    k.start_us = cells.number(row, c_start);
    k.wait_us = cells.number(row, c_wait);
    k.aicore_time_us = cells.number(row, c_aicore);
    k.aiv_time_us = cells.number(row, c_aiv);
    on_row(k);
  }
  cells.finish();
  return true;
}

bool stream_op_statistic(io::CsvReader& r, std::vector<OpStatisticRow>& out,
                         io::Diagnostics& diag) {
  const int c_op = r.column("OP Type");
  if (c_op < 0) {
    diag.error(r.path(), 1, "no \"OP Type\" column: " + header_shape(r),
               "this does not look like an op_statistic.csv; check the file", 0);
    return false;
  }
  const int c_core = r.column("Core Type");
  const int c_count = r.column("Count");
  const int c_total = r.column("Total Time(us)");
  const int c_min = r.column("Min Time(us)");
  const int c_avg = r.column("Avg Time(us)");
  const int c_max = r.column("Max Time(us)");
  const int c_ratio = r.column("Ratio(%)");
  io::CsvCells cells(r, diag);
  io::CsvRow row;
  while (r.next(row)) {
    OpStatisticRow o;
    o.op_type = std::string(io::trim(row[c_op]));
    o.core_type = std::string(io::trim(row[c_core]));
    o.count = cells.number(row, c_count);
    o.total_us = cells.number(row, c_total);
    o.min_us = cells.number(row, c_min);
    o.avg_us = cells.number(row, c_avg);
    o.max_us = cells.number(row, c_max);
    o.ratio_pct = cells.number(row, c_ratio);
    out.push_back(std::move(o));
  }
  cells.finish();
  return true;
}

}  // namespace

bool read_kernel_details_csv(const std::string& path,
                             const std::function<void(const KernelRecord&)>& on_row,
                             io::Diagnostics& diag) {
  io::CsvReader r(path, diag);
  if (!r.open()) return false;
  return stream_kernels(r, on_row, diag);
}

bool parse_kernel_details_csv(std::string_view text, const std::string& source,
                              const std::function<void(const KernelRecord&)>& on_row,
                              io::Diagnostics& diag) {
  io::CsvReader r(source, diag);
  if (!r.open_text(text, source)) return false;
  return stream_kernels(r, on_row, diag);
}

bool read_op_statistic_csv(const std::string& path, std::vector<OpStatisticRow>& out,
                           io::Diagnostics& diag) {
  io::CsvReader r(path, diag);
  if (!r.open()) return false;
  return stream_op_statistic(r, out, diag);
}

bool parse_op_statistic_csv(std::string_view text, const std::string& source,
                            std::vector<OpStatisticRow>& out, io::Diagnostics& diag) {
  io::CsvReader r(source, diag);
  if (!r.open_text(text, source)) return false;
  return stream_op_statistic(r, out, diag);
}

}  // namespace cs::readers
