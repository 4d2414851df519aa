// The simulated host: per-rank dispatch gaps, launch leads and DataLoader delays (host_model.h).

#include "generator/job/host_model.h"

#include <algorithm>

#include "generator/job/writers.h"

namespace cs::generator {

double host_gap_us(const GeneratorOptions& o, int rank) {
  double gap = o.host_bound ? kHostBoundGapUs : 0.0;
  for (const auto& h : o.slow_hosts)
    if (h.rank == rank) gap += h.gap_us;
  return gap;
}

double data_delay_us(const GeneratorOptions& o, int rank) {
  double d = 0;
  for (const auto& s : o.slow_data)
    if (s.rank == rank) d += s.gap_us;
  return d;
}

double launch_lead_us(const GeneratorOptions& o, int rank) {
  if (host_gap_us(o, rank) > kHostLimitedLeadUs) return kHostLimitedLeadUs;
  for (const auto& s : o.slow_devices)
    if (s.rank == rank) return kDeviceBoundLeadUs;
  return kLaunchLeadUs;
}

double data_loader_end_us(const StepSpan& span, double first_kernel_us, double lead_us) {
  if (first_kernel_us < 0) return span.data_end_us;
  return std::min(span.data_end_us, first_kernel_us - lead_us - 0.5);
}

}  // namespace cs::generator
