// Overview and findings sections of the cluster report.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kMaxListed = 50;

// One finding; `rank` >= 0 makes it open that rank's drill-down when clicked.
void finding(HtmlOut& h, const char* cls, const std::string& text, const std::string& evidence,
             long long rank = -1) {
  h.open("li", attr("class", cls) + (rank >= 0 ? attr("data-rank", std::to_string(rank)) : ""));
  h.text(text);
  if (!evidence.empty()) {
    h.raw(" ");
    h.element("span", attr("class", "ev"), evidence);
  }
  h.close();
}

// One story: when the rank with the most of a part is not the one the diagnosis blames, say why.
// Communication not overlapped is mostly waiting, an effect of someone else being slow.
std::string one_story(const ClusterContext& ctx, long long rank, bool communication) {
  if (ctx.slow_ranks.empty() || ctx.slow_ranks.count(rank)) return "";
  std::string blamed;
  for (const long long r : ctx.slow_ranks)
    blamed += (blamed.empty() ? "" : ", ") + std::to_string(r);
  const std::string whom = (ctx.slow_ranks.size() > 1 ? " ranks " : " rank ") + blamed + ".";
  if (communication)
    return " Rank " + std::to_string(rank) +
           " spends that time waiting for its peers or transferring, an effect: the diagnosis "
           "blames" +
           whom;
  return " Rank " + std::to_string(rank) +
         " is not judged slow: its peers do not wait for it more than chance explains (stage "
         "imbalance or noise); the diagnosis blames" +
         whom;
}

}  // namespace

void section_overview(HtmlOut& h, const ClusterContext& ctx) {
  const ClusterReportInput& in = ctx.in;
  begin_section(h, "overview", "Overview");
  const io::Table* m = in.manifest;
  std::map<std::string, size_t> by_status;
  const ColumnRef status(m, "status"), rank(m, "rank"), path(m, "path"), problems(m, "problems");
  for (size_t r = 0; r < rows(m); ++r) ++by_status[status.str(r)];
  size_t steps = 0;
  rank_step_means(in.step_trace, &steps);
  std::vector<std::pair<std::string, std::string>> cards;
  if (m) {
    cards.push_back({"rank directories found", fmt_num(static_cast<double>(rows(m)), 0)});
    cards.push_back({"analysed fully", fmt_num(static_cast<double>(by_status["ok"]), 0)});
    cards.push_back({"read in part", fmt_num(static_cast<double>(by_status["partial"]), 0)});
    cards.push_back({"skipped", fmt_num(static_cast<double>(by_status["skipped"]), 0)});
  }
  if (in.step_trace) cards.push_back({"steps", fmt_num(static_cast<double>(steps), 0)});
  if (in.input_bytes)
    cards.push_back({"input read", fmt_bytes(static_cast<double>(in.input_bytes))});
  if (in.seconds > 0) {
    cards.push_back({"time taken", fmt_num(in.seconds, 2) + " s"});
    if (in.input_bytes)
      cards.push_back(
          {"throughput", fmt_bytes(static_cast<double>(in.input_bytes) / in.seconds) + "/s"});
  }
  cards.push_back({in.processes == 1 ? "process" : "processes",
                   fmt_num(static_cast<double>(std::max(in.processes, 1)), 0)});
  stat_cards(h, cards);
  if (!m) {
    not_computed(h, "Rank manifest");
    h.close();
    return;
  }
  std::vector<size_t> bad;
  for (size_t r = 0; r < rows(m); ++r)
    if (status.str(r) != "ok") bad.push_back(r);
  if (bad.empty()) {
    note(h, "Every rank directory found was read completely.");
  } else {
    h.element("h3", "", "Ranks not read completely");
    h.open("table");
    table_head(h, {"#rank", "status", "path", "problems"});
    h.open("tbody");
    for (size_t i = 0; i < bad.size() && i < kMaxListed; ++i) {
      const size_t r = bad[i];
      h.open("tr", status.str(r) == "skipped" ? attr("class", "flag") : std::string());
      const long long rk = rank.integer(r);
      num_cell(h, rk >= 0 ? std::to_string(rk) : "unknown");
      h.element("td", "", status.str(r));
      h.element("td", attr("class", "key"), path.str(r));
      h.element("td", attr("class", "key"), problems.str(r));
      h.close();
    }
    h.close();
    h.close();
    if (bad.size() > kMaxListed)
      note(h, "\u2026 and " + std::to_string(bad.size() - kMaxListed) +
                  " more: see rank_manifest.csv.");
  }
  h.close();
}

void section_findings(HtmlOut& h, const ClusterContext& ctx) {
  const ClusterReportInput& in = ctx.in;
  begin_section(h, "findings", "Findings");
  h.open("ul", attr("class", "findings"));
  size_t count = 0;
  // Ranks not read.
  {
    const ColumnRef status(in.manifest, "status");
    size_t skipped = 0, partial = 0;
    for (size_t r = 0; r < rows(in.manifest); ++r) {
      const std::string s = status.str(r);
      skipped += s == "skipped";
      partial += s == "partial";
    }
    if (skipped || partial) {
      finding(h, "warn",
              std::to_string(skipped) + " rank directories were skipped and " +
                  std::to_string(partial) +
                  " read only in part; the results below leave out what could not be read.",
              "Reasons are listed in the overview and in rank_manifest.csv.");
      ++count;
    }
  }
  // Slow ranks, highest score first.
  {
    const io::Table* t = in.slow_ranks;
    const ColumnRef rank(t, "rank"), score(t, "score"), cause(t, "cause"), ev(t, "evidence");
    std::vector<size_t> order(rows(t));
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const double sa = score.num(a), sb = score.num(b);
      return (std::isnan(sb) ? -1e300 : sb) < (std::isnan(sa) ? -1e300 : sa);
    });
    for (size_t i = 0; i < order.size() && i < kMaxListed; ++i) {
      const size_t r = order[i];
      std::string c = cause.str(r);
      std::string text = "Rank " + rank.str(r) + " looks slow";
      if (!c.empty() && c != "unknown") text += " (cause: " + c + ")";
      if (score) text += ", score " + fmt_num(score.num(r), 2);
      text += ".";
      finding(h, "bad", text, ev.str(r), rank.integer(r));
      ++count;
    }
    if (order.size() > kMaxListed)
      finding(h, "bad", std::to_string(order.size() - kMaxListed) + " more slow ranks.",
              "See slow_ranks.csv.");
  }
  // Slow links.
  {
    const io::Table* t = in.slow_links;
    const ColumnRef src(t, "src_rank"), dst(t, "dst_rank"), tr(t, "transport"),
        bw(t, "bandwidth_gbps"), exp(t, "expected_gbps"), ratio(t, "ratio"), ev(t, "evidence");
    for (size_t r = 0; r < rows(t) && r < kMaxListed; ++r) {
      std::string text = "Link " + src.str(r) + " \u2192 " + dst.str(r);
      if (!tr.str(r).empty()) text += " (" + tr.str(r) + ")";
      text += " is slow";
      if (std::isfinite(bw.num(r))) text += ": " + fmt_num(bw.num(r), 2) + " GB/s";
      if (std::isfinite(exp.num(r)))
        text += " where " + fmt_num(exp.num(r), 2) + " GB/s was expected";
      if (std::isfinite(ratio.num(r))) text += " (" + fmt_pct(ratio.num(r)) + ")";
      text += ".";
      finding(h, "bad", text, ev.str(r));
      ++count;
    }
    if (rows(t) > kMaxListed)
      finding(h, "bad", std::to_string(rows(t) - kMaxListed) + " more slow links.",
              "See slow_links.csv.");
  }
  // Step-time spread across ranks (msprof-analyze advisor rule: max - min > 5% of the mean step).
  {
    size_t steps = 0;
    const auto per_rank = rank_step_means(in.step_trace, &steps);
    if (per_rank.size() >= 2) {
      double mean_step = 0;
      for (const auto& r : per_rank) mean_step += r.total();
      mean_step /= static_cast<double>(per_rank.size());
      struct Part {
        const char* name;
        double RankSteps::*field;
      };
      const Part parts[] = {{"Computing", &RankSteps::computing},
                            {"Communication (not overlapped)", &RankSteps::comm},
                            {"Free", &RankSteps::free}};
      for (const auto& p : parts) {
        auto [lo, hi] = std::minmax_element(
            per_rank.begin(), per_rank.end(),
            [&](const RankSteps& a, const RankSteps& b) { return a.*p.field < b.*p.field; });
        const double spread = (*hi).*p.field - (*lo).*p.field;
        if (mean_step > 0 && spread > 0.05 * mean_step) {
          finding(h, "warn",
                  std::string(p.name) + " time differs by " + fmt_us(spread) + " across ranks, " +
                      fmt_pct(spread / mean_step) + " of the mean step time: most on rank " +
                      std::to_string(hi->rank) + " (" + fmt_us((*hi).*p.field) +
                      "), least on rank " + std::to_string(lo->rank) + " (" +
                      fmt_us((*lo).*p.field) + ").",
                  std::string("Imbalance above 5% of the step time makes every rank wait for the "
                              "slowest.") +
                      one_story(ctx, hi->rank, p.field == &RankSteps::comm));
          ++count;
        }
      }
    }
  }
  // Wait / synchronization ratios (CANN rule of thumb).
  {
    const auto waits = rank_wait_ratios(rank_wait_table(in));
    if (!waits.empty()) {
      const auto hi = std::max_element(
          waits.begin(), waits.end(),
          [](const RankWait& a, const RankWait& b) { return a.wait_ratio < b.wait_ratio; });
      double max_sync = 0;
      for (const auto& w : waits) max_sync = std::max(max_sync, w.sync_ratio);
      if (hi->wait_ratio > 0.2 && max_sync > 0.2) {
        // One story: name the ranks the diagnosis judged slow, not whoever waits least (a rank
        // at the end of a slow link or in a lightly loaded group waits least too).
        std::string who;
        if (ctx.slow_ranks.empty()) {
          who =
              " No rank is judged slow: no single late rank explains the waits (see the slow "
              "links and the findings).";
        } else {
          who = " Judged slow (its peers wait for it): rank";
          who += ctx.slow_ranks.size() > 1 ? "s " : " ";
          size_t i = 0;
          for (long long r : ctx.slow_ranks) {
            if (i == 5) {
              who += ", ...";
              break;
            }
            who += (i++ ? ", " : "") + std::to_string(r);
          }
          who += " (see Findings).";
        }
        finding(h, "warn",
                "Ranks are not synchronized: communication waits up to " + fmt_pct(hi->wait_ratio) +
                    " (rank " + std::to_string(hi->rank) + ") with synchronization up to " +
                    fmt_pct(max_sync) + "." + who,
                "In a collective every rank waits for the last one; the slow-rank diagnosis "
                "checks who the others wait for, in every group and step.");
        ++count;
      } else if (hi->wait_ratio > 0.2) {
        finding(h, "warn",
                "Communication waits up to " + fmt_pct(hi->wait_ratio) + " (rank " +
                    std::to_string(hi->rank) +
                    ") while ranks start in sync: suspect a slow link rather than a slow rank.",
                "Check the communication matrix below for links with low bandwidth.");
        ++count;
      }
    }
  }
  if (count == 0) finding(h, "ok", "No problem found in the analyses that were computed.", "");
  h.close();  // ul
  recipe_agreement_view(h, ctx);
  if (!in.summary_text.empty()) {
    h.element("h3", "", "Summary");
    h.element("pre", attr("class", "summary"), in.summary_text);
  }
  h.close();
}

}  // namespace cs::report
