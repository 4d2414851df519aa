#include "analysis/recipe_agreement.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/format_value.h"

namespace cs::analysis {

namespace {

const SlowRankFinding* find_rank(const std::vector<SlowRankFinding>& f, int rank) {
  for (const auto& x : f)
    if (x.rank == rank) return &x;
  return nullptr;
}

std::string rank_status(const SlowRankFinding* f) {
  if (!f) return "not slow";
  return "slow (" + f->cause + "), costs its peers " + fmt("%.2f", f->impact_ms_per_step) +
         " ms per step";
}

// The slow links that have `rank` at an end.
std::vector<const SlowLinkFinding*> links_at(const std::vector<SlowLinkFinding>& links, int rank) {
  std::vector<const SlowLinkFinding*> out;
  for (const auto& l : links)
    if (l.src_rank == rank || l.dst_rank == rank) out.push_back(&l);
  return out;
}

std::string link_name(const SlowLinkFinding& l) {
  return std::to_string(l.src_rank) + "->" + std::to_string(l.dst_rank) + " (" + l.transport + ")";
}

struct Rows {
  io::Table t{"recipe_agreement"};
  io::Column* recipe = &t.add_string("recipe");
  io::Column* subject = &t.add_string("subject");
  io::Column* theirs = &t.add_string("msprof_analyze");
  io::Column* ours = &t.add_string("clusterscope");
  io::Column* agree = &t.add_string("agree");
  io::Column* why = &t.add_string("why");
  void add(std::string r, std::string s, std::string m, std::string c, bool a, std::string w) {
    recipe->strings.push_back(std::move(r));
    subject->strings.push_back(std::move(s));
    theirs->strings.push_back(std::move(m));
    ours->strings.push_back(std::move(c));
    agree->strings.push_back(a ? "yes" : "no");
    why->strings.push_back(std::move(w));
  }
};

// The voted ranks, most votes first (ties by rank).
std::vector<std::pair<int, int64_t>> by_votes(const RecipeVerdicts& v) {
  auto votes = v.slow_rank_votes;
  std::stable_sort(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return votes;
}

void slow_rank_rows(Rows& rows, const RecipeVerdicts& v, const std::vector<SlowRankFinding>& slow,
                    size_t max_voted) {
  const auto votes = by_votes(v);
  std::set<int> said;
  for (size_t i = 0; i < votes.size() && i < max_voted; ++i) {
    const auto [rank, n] = votes[i];
    said.insert(rank);
    const SlowRankFinding* f = find_rank(slow, rank);
    rows.add("slow_rank", "rank " + std::to_string(rank), std::to_string(n) + " vote(s)",
             rank_status(f), f != nullptr,
             f ? "both name it: its collectives end when it arrives"
               : "slow_rank votes for every instance whose shortest op is a statistical "
                 "outlier, however little the others wait; clusterscope needs the wait it "
                 "causes to cost its peers at least 1% of its step in every step, and a cause "
                 "of its own");
  }
  for (const auto& f : slow) {
    if (said.count(f.rank)) continue;
    rows.add(
        "slow_rank", "rank " + std::to_string(f.rank),
        v.slow_rank_votes.empty() ? "no vote" : "no vote in its top " + std::to_string(max_voted),
        rank_status(&f), false,
        f.collective_evidence
            ? "clusterscope adds up the waits across instances and steps; slow_rank's "
              "per-instance outlier test (Dixon's up to 100 ranks, 3 sigma above) fires "
              "only when one instance stands out on its own"
            : "clusterscope found it from its step trace against its stage peers; "
              "slow_rank looks only at collective op durations");
  }
}

void freq_rows(Rows& rows, const RecipeVerdicts& v, const std::vector<SlowRankFinding>& slow) {
  auto one = [&](int rank, const std::string& freqs, const char* what) {
    const SlowRankFinding* f = find_rank(slow, rank);
    const bool compute = f && f->cause == "compute";
    std::string why;
    if (compute) {
      why = "a lower AI Core clock lengthens its computing, which clusterscope measured";
    } else if (f) {
      why = "clusterscope finds it slow but blames " + f->cause + ", not its computing";
    } else {
      why =
          "its clock changed but its computing did not stand out from its stage peers in "
          "every step (the change may fall in idle time), so it cost the job nothing "
          "measurable";
    }
    rows.add("freq_analysis", "rank " + std::to_string(rank),
             std::string(what) + ": AI Core MHz " + freqs, rank_status(f), compute, why);
  };
  for (const auto& [rank, freqs] : v.idle_frequency) one(rank, freqs, "clock dropped");
  for (const auto& [rank, freqs] : v.abnormal_frequency) one(rank, freqs, "abnormal clock");
}

void slow_link_rows(Rows& rows, const RecipeVerdicts& v,
                    const std::vector<SlowLinkFinding>& links) {
  std::set<const SlowLinkFinding*> matched;
  for (const auto& g : v.slow_links) {
    const auto at = links_at(links, g.slowest_rank);
    std::string ours = at.empty() ? "no slow link at rank " + std::to_string(g.slowest_rank) : "";
    for (const SlowLinkFinding* l : at) {
      ours += (ours.empty() ? "slow link " : ", ") + link_name(*l);
      matched.insert(l);
    }
    rows.add("slow_link", g.group,
             "transmit-time outlier, offset ratio " + fmt("%.2f", g.offset_ratio) +
                 ", slowest rank " + std::to_string(g.slowest_rank),
             ours, !at.empty(),
             at.empty() ? "slow_link keeps any op class with one transmit time beyond 3 sigma of "
                          "its mean (a one-off delay counts); clusterscope judges each link's "
                          "bandwidth over all its transfers against its transport and its peers"
                        : "both point at the same rank's link");
  }
  for (const auto& l : links) {
    if (matched.count(&l)) continue;
    rows.add("slow_link", "link " + link_name(l), "no op class with an outlier at its ranks",
             "slow link: " + fmt("%.1f", l.bandwidth_gbps) + " GB/s against " +
                 fmt("%.1f", l.expected_gbps) + " expected",
             false,
             "a link slow in every transfer shifts the whole op class and leaves no single "
             "outlier for slow_link's 3-sigma test");
  }
}

}  // namespace

io::Table recipe_agreement_table(const RecipeVerdicts& v,
                                 const std::vector<SlowRankFinding>& slow_ranks,
                                 const std::vector<SlowLinkFinding>& slow_links, size_t max_voted) {
  Rows rows;
  if (!v.ran) return std::move(rows.t);
  slow_rank_rows(rows, v, slow_ranks, max_voted);
  freq_rows(rows, v, slow_ranks);
  slow_link_rows(rows, v, slow_links);
  return std::move(rows.t);
}

std::string recipe_agreement_summary(const RecipeVerdicts& v,
                                     const std::vector<SlowRankFinding>& slow_ranks,
                                     const std::vector<SlowLinkFinding>& slow_links) {
  if (!v.ran) return "";
  std::string s;
  const auto votes = by_votes(v);
  if (votes.empty()) {
    s += "msprof-analyze slow_rank: no vote; clusterscope finds " +
         std::to_string(slow_ranks.size()) + " slow rank(s).\n";
  } else {
    const auto [rank, n] = votes.front();
    s += "msprof-analyze slow_rank: most votes for rank " + std::to_string(rank) + " (" +
         std::to_string(n) + "); clusterscope " +
         (find_rank(slow_ranks, rank) ? "also finds it slow" : "does not find it slow") + ".\n";
  }
  if (v.freq_ran) {
    const size_t named = v.idle_frequency.size() + v.abnormal_frequency.size();
    size_t also = 0;
    for (const auto* list : {&v.idle_frequency, &v.abnormal_frequency})
      for (const auto& [rank, f] : *list) {
        const SlowRankFinding* x = find_rank(slow_ranks, rank);
        also += x && x->cause == "compute";
      }
    s += "msprof-analyze freq_analysis: " + std::to_string(named) +
         " rank(s) with a dropped or abnormal AI Core clock; " + std::to_string(also) +
         " of them slow from computing here.\n";
  }
  size_t agree = 0;
  for (const auto& g : v.slow_links) agree += !links_at(slow_links, g.slowest_rank).empty();
  s += "msprof-analyze slow_link: " + std::to_string(v.slow_links.size()) +
       " op class(es) with a transmit-time outlier, " + std::to_string(agree) +
       " at a link clusterscope finds slow (" + std::to_string(slow_links.size()) +
       " slow link(s)). Details: recipe_agreement.csv.\n";
  return s;
}

}  // namespace cs::analysis
