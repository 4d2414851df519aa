#include "msprof_analyze/documents/parked_step_trace.h"

#include <exception>
#include <utility>

namespace cs::documents {

ParkedStepTrace::ParkedStepTrace(ClusterStepTrace trace,
                                 const std::shared_ptr<runtime::SpillFile>& spill)
    : trace_(std::move(trace)) {
  if (!spill || trace_.empty()) return;
  ClusterStepTrace::Cells cells = trace_.take_cells();
  try {
    values_ = spill->append(reinterpret_cast<const char*>(cells.values.data()),
                            cells.values.size() * sizeof(double));
    kinds_ = spill->append(reinterpret_cast<const char*>(cells.kinds.data()), cells.kinds.size());
    spill_ = spill;
  } catch (const std::exception&) {  // a full disk, say: kept in memory
    values_.reset();
    kinds_.reset();
    trace_.put_cells(std::move(cells));
  }
}

ClusterStepTrace ParkedStepTrace::take() {
  if (values_) {
    ClusterStepTrace::Cells cells;
    cells.values.resize(values_->size / sizeof(double));
    cells.kinds.resize(kinds_->size);
    spill_->read_to(*values_, reinterpret_cast<char*>(cells.values.data()));
    spill_->read_to(*kinds_, reinterpret_cast<char*>(cells.kinds.data()));
    trace_.put_cells(std::move(cells));
    values_.reset();
    kinds_.reset();
    spill_.reset();
  }
  return std::move(trace_);
}

}  // namespace cs::documents
