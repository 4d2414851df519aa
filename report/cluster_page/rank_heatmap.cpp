// Rank x step heatmap of the cluster report: one canvas per captured step, one cell per rank
// (ranks laid out row by row), coloured by the rank's Computing against the median of its stage
// peers in that step. Every rank has its own cell at 10,000 ranks, so a slow rank stands out as a
// red cell in every step; the page script draws the canvases from a JSON block (a few bytes a
// cell), hover names the rank and its value, a click opens its drill-down.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/cluster_page/cluster_sections.h"
#include "report/page_script.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kMaxSteps = 12;  // canvases drawn; later steps are in the tables and CSV

}  // namespace

void rank_step_heatmap(HtmlOut& h, const ClusterContext& ctx) {
  const io::Table* t = ctx.in.step_trace;
  const ColumnRef rank(t, "rank"), step(t, "step"), comp(t, "computing_us");
  if (!rank || !comp) return;
  std::map<std::string, std::map<long long, double>> by_step;  // step -> rank -> Computing
  std::set<long long> ranks;
  for (size_t r = 0; r < rows(t); ++r) {
    const long long rk = rank.integer(r);
    const double v = comp.num(r);
    if (rk < 0 || !std::isfinite(v)) continue;
    by_step[step.str(r)][rk] += v;
    ranks.insert(rk);
  }
  if (ranks.size() < 2 || by_step.empty()) return;
  // Steps in numeric order when they are numbers.
  std::vector<std::string> steps;
  for (const auto& [s, m] : by_step) steps.push_back(s);
  std::stable_sort(steps.begin(), steps.end(), [](const std::string& a, const std::string& b) {
    const bool na = !a.empty() && a.find_first_not_of("0123456789") == std::string::npos;
    const bool nb = !b.empty() && b.find_first_not_of("0123456789") == std::string::npos;
    if (na && nb) return a.size() < b.size() || (a.size() == b.size() && a < b);
    return na && !nb;
  });
  const size_t shown = std::min(steps.size(), kMaxSteps);
  h.element("h3", "", "Computing per rank and step, against its stage peers");
  note(h,
       "One cell per rank (rank 0 top left, row by row), one map per step: red where the rank "
       "computes longer than the median of its pipeline-stage peers in that step, blue where "
       "shorter, white at the median (full colour at \u00b115%). Ranks judged slow are outlined. "
       "Hover a cell for the rank, click it for its details." +
           (shown < steps.size() ? " The first " + std::to_string(shown) + " of " +
                                       std::to_string(steps.size()) + " steps are drawn."
                                 : std::string()));
  // JSON: the ranks, their stage, the slow ranks, the steps, then per step every rank's Computing
  // in per mille of its stage's median ("r", -1 when absent) and the stage medians in µs ("med").
  std::string j = "{\"ranks\":[";
  std::string st = "],\"stage\":[";
  bool first = true;
  for (const long long r : ranks) {
    const auto it = ctx.groups.coords.find(r);
    const long long s = it != ctx.groups.coords.end() ? it->second.stage : -1;
    j += (first ? "" : ",") + std::to_string(r);
    st += (first ? "" : ",") + std::to_string(std::max<long long>(s, 0));
    first = false;
  }
  j += st + "],\"slow\":[";
  first = true;
  for (const long long r : ctx.slow_ranks) {
    j += (first ? "" : ",") + std::to_string(r);
    first = false;
  }
  j += "],\"steps\":[";
  for (size_t i = 0; i < shown; ++i) j += (i ? "," : "") + json_string(steps[i]);
  // Per step: the median Computing of each stage (µs) and every rank's Computing against its
  // stage's median in per mille (4 digits a rank where µs would take 5-6).
  std::vector<long long> stage_of;
  for (const long long r : ranks) {
    const auto it = ctx.groups.coords.find(r);
    stage_of.push_back(it != ctx.groups.coords.end() ? std::max<long long>(it->second.stage, 0)
                                                     : 0);
  }
  const long long stages =
      stage_of.empty() ? 1 : *std::max_element(stage_of.begin(), stage_of.end()) + 1;
  std::string med = "],\"med\":[";
  j += "],\"r\":[";
  for (size_t i = 0; i < shown; ++i) {
    const auto& m = by_step[steps[i]];
    std::vector<std::vector<double>> per_stage(static_cast<size_t>(stages));
    size_t k = 0;
    for (const long long r : ranks) {
      if (const auto it = m.find(r); it != m.end())
        per_stage[static_cast<size_t>(stage_of[k])].push_back(it->second);
      ++k;
    }
    std::vector<double> medians;
    med += i ? ",[" : "[";
    for (size_t s = 0; s < per_stage.size(); ++s) {
      auto& v = per_stage[s];
      double md = 0;
      if (!v.empty()) {
        std::sort(v.begin(), v.end());
        md = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
      }
      medians.push_back(md);
      med += (s ? "," : "") + std::to_string(std::llround(md));
    }
    med += "]";
    j += i ? ",[" : "[";
    k = 0;
    for (const long long r : ranks) {
      const auto it = m.find(r);
      const double md = medians[static_cast<size_t>(stage_of[k++])];
      const long long pm = it == m.end() || !(md > 0)
                               ? -1
                               : std::llround(std::clamp(it->second / md * 1000, 0.0, 1e9));
      j += (k > 1 ? "," : "") + std::to_string(pm);
    }
    j += "]";
  }
  j += med + "]";
  j += "}";
  h.open("script", attr("type", "application/json") + attr("id", "cs-heat"));
  h.raw(j);
  h.close();
  h.open("div", attr("class", "legend"));
  h.element("span", "", "\u221215% ");
  h.element("span", attr("class", "hmkey"), "");
  h.element("span", "", " +15% of the stage median");
  h.close();
  h.element("div", attr("class", "hmtip") + attr("id", "hmtip") + attr("aria-live", "polite"), "");
  h.element("div", attr("class", "hm") + attr("id", "hm"), "");
}

}  // namespace cs::report
