#include "msprof_analyze/recipes/communication_matrix_sum/msprof_matrix_rows.h"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"

namespace cs::recipes::communication_matrix_sum {

namespace {

const frame::Cell kNull;

const std::vector<frame::Cell>* cells_of(const frame::Frame& f, const char* name) {
  const frame::FrameColumn* c = frame::find_column(f, name);
  return c ? &c->cells : nullptr;
}

const frame::Cell& cell(const std::vector<frame::Cell>* c, size_t r) {
  return c ? (*c)[r] : kNull;
}

bool is_nan(const frame::Cell& c) {
  return c.kind == frame::Cell::Kind::kNull ||
         (c.kind == frame::Cell::Kind::kReal && std::isnan(c.num()));
}

// msprof-analyze's P2P_HCOM prefixes of the lower-cased op name.
bool is_p2p(std::string_view name) {
  std::string lower(name);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (std::string_view p : {"hcom_send", "hcom_receive", "hcom_batchsendrecv"})
    if (lower.starts_with(p)) return true;
  return false;
}

}  // namespace

bool is_msprof_matrix(const frame::Frame& matrix) {
  return !frame::find_column(matrix, "step") && !frame::find_column(matrix, "op_name") &&
         frame::find_column(matrix, "hccl_op_name");
}

frame::Frame reshape_msprof_matrix(const frame::Frame& matrix) {
  const size_t n = matrix.rows();
  const auto* name_c = cells_of(matrix, "hccl_op_name");
  // The instance rows with the added columns, as the recipe's DataFrame holds them.
  frame::Frame rows;
  auto& type = rows.add("type").cells;
  auto& step = rows.add("step").cells;
  auto& group = rows.add("group_name").cells;
  auto& op_type = rows.add("hccl_op_name").cells;
  auto& src = rows.add("src_rank").cells;
  auto& dst = rows.add("dst_rank").cells;
  auto& op_name = rows.add("op_name").cells;
  auto& transport = rows.add("transport_type").cells;
  auto& size = rows.add("transit_size").cells;
  auto& time = rows.add("transit_time").cells;
  auto& bandwidth = rows.add("bandwidth").cells;
  const frame::Cell p2p = frame::Cell::text("p2p"), collective = frame::Cell::text("collective");
  const frame::Cell step_text = frame::Cell::text("step");
  for (size_t r = 0; r < n; ++r) {
    const frame::Cell& name = cell(name_c, r);
    const bool text = name.kind == frame::Cell::Kind::kText;
    type.push_back(text && is_p2p(name.str()) ? p2p : collective);
    step.push_back(step_text);
    group.push_back(cell(cells_of(matrix, "group_name"), r));
    op_type.push_back(text ? frame::Cell::text(name.str().substr(0, name.str().find("__")))
                           : frame::Cell::null());
    src.push_back(cell(cells_of(matrix, "src_rank"), r));
    dst.push_back(cell(cells_of(matrix, "dst_rank"), r));
    op_name.push_back(name);
    transport.push_back(cell(cells_of(matrix, "transport_type"), r));
    size.push_back(cell(cells_of(matrix, "transit_size"), r));
    time.push_back(cell(cells_of(matrix, "transit_time"), r));
    bandwidth.push_back(cell(cells_of(matrix, "bandwidth"), r));
  }
  const frame::GroupedRows groups = frame::group_rows_flat(
      rows, {"type", "step", "group_name", "hccl_op_name", "src_rank", "dst_rank"}, true);

  frame::Frame out;
  for (const auto& c : rows.columns) out.add(c.name);
  auto put = [&](size_t r, const char* label) {
    for (size_t c = 0; c < rows.columns.size(); ++c) {
      frame::Cell v = rows.columns[c].cells[r];
      if (c == 3) v = frame::Cell::text(std::string(v.str()) + "-" + label);
      out.columns[c].cells.push_back(v);
    }
  };
  // The example rows of every group, then the totals.
  for (std::span<const size_t> g : groups) {
    std::vector<size_t> valid, nan_rows;
    for (size_t r : g) (is_nan(bandwidth[r]) ? nan_rows : valid).push_back(r);
    const std::vector<size_t> order = frame::numpy_argsort(valid.size(), [&](size_t a, size_t b) {
      return bandwidth[valid[a]].num() < bandwidth[valid[b]].num();
    });
    std::vector<size_t> sorted;
    for (size_t i : order) sorted.push_back(valid[i]);
    sorted.insert(sorted.end(), nan_rows.begin(), nan_rows.end());
    const size_t k = sorted.size();
    std::vector<std::pair<size_t, const char*>> picks = {{0, "top1"}, {k - 1, "bottom1"}};
    if (k > 1) picks.push_back({k - 2, "bottom2"});
    if (k > 2) picks.push_back({k - 3, "bottom3"});
    picks.push_back({k / 2, "middle"});
    for (const auto& [i, label] : picks) {
      const size_t r = sorted[i];
      bool any_null = false;
      for (const auto& c : rows.columns) any_null = any_null || is_nan(c.cells[r]);
      if (!any_null) put(r, label);
    }
  }
  for (std::span<const size_t> g : groups) {
    const size_t r0 = g.front();
    for (size_t c = 0; c < 6; ++c) {
      frame::Cell v = rows.columns[c].cells[r0];
      if (c == 3) v = frame::Cell::text(std::string(v.str()) + "-total");
      out.columns[c].cells.push_back(v);
    }
    out.columns[6].cells.push_back(frame::Cell::null());
    out.columns[7].cells.push_back(frame::group_first(rows.columns[7], g));
    const frame::Cell s = frame::group_sum(rows.columns[8], rows.columns[8].dtype(), g);
    const frame::Cell t = frame::group_sum(rows.columns[9], rows.columns[9].dtype(), g);
    out.columns[8].cells.push_back(s);
    out.columns[9].cells.push_back(t);
    // size / time.where(time != 0, other=0): a zero time divides by zero.
    out.columns[10].cells.push_back(frame::Cell::real(s.num() / t.num()));
  }
  return out;
}

}  // namespace cs::recipes::communication_matrix_sum
