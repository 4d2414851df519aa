#include "report/compare_page/compare_regressions.h"

#include <cmath>
#include <string>

#include "report/display_format.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

std::string signed_us(double us) {
  return (us > 0 ? "+" : "") + fmt_us(us);
}

// "rank 5" -> 5, else -1.
long long rank_of(const std::string& where) {
  if (where.rfind("rank ", 0) != 0) return -1;
  try {
    return std::stoll(where.substr(5));
  } catch (...) {
    return -1;
  }
}

// The step of `rank` whose Computing grew most (rank_diff rows), "" when none grew.
std::string worst_step(const io::Table* rank_diff, long long rank, double& diff_out) {
  const ColumnRef rk(rank_diff, "rank"), step(rank_diff, "step"), metric(rank_diff, "metric"),
      diff(rank_diff, "diff_us");
  std::string best;
  diff_out = 0;
  for (size_t r = 0; r < rows(rank_diff); ++r) {
    if (rk.integer(r) != rank || metric.str(r) != "Computing") continue;
    const double d = diff.num(r);
    if (std::isfinite(d) && d > diff_out) diff_out = d, best = step.str(r);
  }
  return best;
}

// The operator whose time grew most on `rank` (or anywhere when rank < 0), "" when none.
std::string worst_operator(const io::Table* t, long long rank, double& diff_out) {
  const ColumnRef what(t, "what"), key(t, "key"), where(t, "where"), diff(t, "diff_us");
  std::string best;
  diff_out = 0;
  for (size_t r = 0; r < rows(t); ++r) {
    if (what.str(r) != "operator") continue;
    if (rank >= 0 && rank_of(where.str(r)) != rank && where.str(r).rfind("all ", 0) != 0) continue;
    const double d = diff.num(r);
    if (std::isfinite(d) && d > diff_out) diff_out = d, best = key.str(r);
  }
  return best;
}

}  // namespace

size_t regression_findings(HtmlOut& h, const CompareReportInput& in, size_t max_items) {
  const io::Table* t = in.regressions;
  if (!t) return 0;
  const ColumnRef what(t, "what"), key(t, "key"), where(t, "where"), sig(t, "significant"),
      diff(t, "diff_us"), ratio(t, "diff_ratio"), impact(t, "impact_us"), noise(t, "noise_us");
  size_t n = 0;
  for (size_t r = 0; r < rows(t) && n < max_items; ++r) {
    if (sig.integer(r, 0) != 1) continue;
    const double d = diff.num(r), rel = ratio.num(r) - 1;
    const std::string by =
        signed_us(d) + " per step" +
        (std::isfinite(rel) ? " (" + (rel > 0 ? std::string("+") : "") + fmt_pct(rel) + ")" : "");
    const std::string w = what.str(r), place = where.str(r);
    std::string text;
    if (w == "rank") {
      text = "Rank " + std::to_string(rank_of(place)) + " computes " + by + " against the base";
    } else if (w == "operator") {
      text = "Operator " + key.str(r) + " takes " + by + " on " + place;
    } else if (w == "communication") {
      text = "Communication " + key.str(r) + " transits " + by + " (" + place + ")";
    } else if (w == "dispatch" || w == "data" || w == "compile" || w == "free") {
      // The host side (compare/host_regressions.h): a part of the device's Free time.
      const std::string part = w == "dispatch"  ? "Waiting for dispatch"
                               : w == "data"    ? "Data loading"
                               : w == "compile" ? "Run-time compilation"
                                                : "Free time";
      text = part + " on " + place + " takes " + by;
    } else {
      text = "Link " + key.str(r) + " transfers take " + by;
    }
    const long long rank = rank_of(place);
    double sd = 0, od = 0;
    const std::string step = w == "rank" && rank >= 0 ? worst_step(in.rank_diff, rank, sd) : "";
    const std::string op = w == "rank" ? worst_operator(t, rank, od) : "";
    if (!step.empty()) text += "; most in step " + step + " (" + signed_us(sd) + ")";
    if (!op.empty())
      text += "; its operator that grew most: " + op + " (" + signed_us(od) + " per step)";
    text += ".";
    h.open("li", attr("class", d > 0 ? "bad" : "ok") +
                     (rank >= 0 ? attr("data-rank", std::to_string(rank)) : std::string()));
    h.text(text);
    h.raw(" ");
    h.element("span", attr("class", "ev"),
              "Impact " + signed_us(impact.num(r)) + " per step, noise " + fmt_us(noise.num(r)) +
                  " (regressions.csv).");
    h.close();
    ++n;
  }
  if (n == 0) {
    h.element("li", attr("class", "ok"),
              "No significant regression: every rank, operator, communication group and link "
              "changed within the noise measured across the ranks.");
    return 1;
  }
  return n;
}

}  // namespace cs::report
