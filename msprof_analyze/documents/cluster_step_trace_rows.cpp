#include "msprof_analyze/documents/cluster_step_trace_rows.h"

#include <cstring>
#include <stdexcept>

namespace cs::documents {

StepCell ClusterStepTrace::cell(size_t row, size_t col) const {
  const size_t i = row * width_ + col;
  const double v = values_[i];
  switch (kinds_[i]) {
    case kText:
      return StepCell::str(strings_[static_cast<size_t>(v)]);
    case kInt:
      return StepCell::num({v, true});
    case kReal:
      return StepCell::num(io::Num::real(v));
    default:
      return StepCell::null();
  }
}

void ClusterStepTrace::reset(size_t width, size_t rows) {
  width_ = width;
  values_.clear();
  kinds_.clear();
  values_.reserve(width * rows);
  kinds_.reserve(width * rows);
}

uint32_t ClusterStepTrace::intern(std::string_view s) {
  auto [it, inserted] =
      string_ids_.try_emplace(std::string(s), static_cast<uint32_t>(strings_.size()));
  if (inserted) strings_.emplace_back(s);
  return it->second;
}

void ClusterStepTrace::push(const StepCell& c) {
  switch (c.kind) {
    case StepCell::kString:
      values_.push_back(static_cast<double>(intern(c.s)));
      kinds_.push_back(kText);
      break;
    case StepCell::kNumber:
      values_.push_back(c.n.v);
      kinds_.push_back(c.n.is_int ? kInt : kReal);
      break;
    case StepCell::kNull:
      values_.push_back(0.0);
      kinds_.push_back(kNone);
      break;
  }
}

void ClusterStepTrace::add_row(std::span<const StepCell> cells) {
  if (kinds_.empty() && width_ == 0) width_ = cells.size();
  if (cells.size() != width_)
    throw std::invalid_argument("a step trace row of " + std::to_string(cells.size()) +
                                " cells, the trace's rows have " + std::to_string(width_));
  for (const StepCell& c : cells) push(c);
}

ClusterStepTrace::Cells ClusterStepTrace::take_cells() {
  Cells c{std::move(values_), std::move(kinds_)};
  values_ = {};
  kinds_ = {};
  return c;
}

void ClusterStepTrace::put_cells(Cells cells) {
  if (cells.values.size() != cells.kinds.size() ||
      (width_ != 0 && cells.kinds.size() % width_ != 0))
    throw std::invalid_argument("ClusterStepTrace::put_cells: not whole rows of this trace");
  values_ = std::move(cells.values);
  kinds_ = std::move(cells.kinds);
}

bool operator==(const ClusterStepTrace& a, const ClusterStepTrace& b) {
  if (a.header != b.header || a.width_ != b.width_ || a.kinds_.size() != b.kinds_.size())
    return false;
  for (size_t i = 0; i < a.kinds_.size(); ++i) {
    const StepCell x = a.cell(i / a.width_, i % a.width_), y = b.cell(i / b.width_, i % b.width_);
    if (x.kind != y.kind || x.s != y.s || x.n.is_int != y.n.is_int ||
        std::memcmp(&x.n.v, &y.n.v, sizeof(double)) != 0)
      return false;
  }
  return true;
}

}  // namespace cs::documents
