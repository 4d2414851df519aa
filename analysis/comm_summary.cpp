#include "analysis/comm_summary.h"

#include <cmath>

namespace cs::analysis {

double comm_share(double part, double transit) {
  const double d = part + transit;
  return d < 1e-15 ? 0.0 : part / d;
}

double comm_time_ms(const readers::CommOp& op, readers::TimeField f) {
  return op.time.has(f) && std::isfinite(op.time.get(f)) ? op.time.get(f) : 0.0;
}

}  // namespace cs::analysis
