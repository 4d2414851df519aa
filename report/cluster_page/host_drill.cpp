// The host side of the rank drill-down: each rank's Free breakdown per step (free_breakdown) and
// its host-heaviest operators (host_rank_ops), embedded as <script id="cs-host"> and drawn into
// the drill-down panel by window.csDrillHost (called from the page script's drill()). Jobs of
// more than kAllRanks ranks embed the ranks with the most Free and the slow ranks only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "report/cluster_page/cluster_sections.h"
#include "report/page_script.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kAllRanks = 256;     // up to this many ranks, every rank is embedded
constexpr size_t kTopRanks = 100;     // else the ranks of most Free (and the slow ranks)
constexpr size_t kStepsPerRank = 50;  // steps embedded per rank
const char* const kParts[] = {"free_us", "data_us",     "compile_us",     "sync_us",
                              "gc_us",   "dispatch_us", "unattributed_us"};

std::string num(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// The ranks to embed: all of them, or the kTopRanks of most Free plus the slow ranks.
std::set<long long> embedded_ranks(const ClusterContext& ctx, const io::Table* t) {
  const ColumnRef rank(t, "rank"), fr(t, "free_us");
  std::map<long long, double> free;
  for (size_t r = 0; r < rows(t); ++r)
    free[rank.integer(r)] += std::isfinite(fr.num(r)) ? fr.num(r) : 0;
  std::set<long long> out;
  if (free.size() <= kAllRanks) {
    for (const auto& [rk, f] : free) out.insert(rk);
    return out;
  }
  std::vector<std::pair<double, long long>> by;
  for (const auto& [rk, f] : free) by.push_back({-f, rk});
  std::sort(by.begin(), by.end());
  for (size_t i = 0; i < by.size() && i < kTopRanks; ++i) out.insert(by[i].second);
  for (long long rk : ctx.slow_ranks)
    if (free.count(rk)) out.insert(rk);
  return out;
}

constexpr std::string_view kScript = R"JS(
(function(){'use strict';var X=null;try{X=JSON.parse(document.getElementById('cs-host').textContent);}catch(e){return;}
function fmt(us){return us>=1e6?(us/1e6).toFixed(2)+' s':(us>=1e3?(us/1e3).toFixed(2)+' ms':us.toFixed(1)+' \u00b5s');}
function table(panel,heads,rows,flag){var t=document.createElement('table'),th=document.createElement('thead'),tr=document.createElement('tr');
heads.forEach(function(h,i){var c=document.createElement('th');c.textContent=h;if(i)c.className='n';tr.appendChild(c);});
th.appendChild(tr);t.appendChild(th);var tb=document.createElement('tbody');rows.forEach(function(r,ri){var row=document.createElement('tr');
if(flag&&flag[ri])row.className='flag';r.forEach(function(v,i){var c=document.createElement('td');c.textContent=v;if(i)c.className='n';row.appendChild(c);});
tb.appendChild(row);});t.appendChild(tb);t.className='hostdrill';panel.appendChild(t);}
window.csDrillHost=function(rank,panel){var f=X.f[rank],o=X.o[rank];var h=document.createElement('h3');
h.textContent='Host side: its Free per step by cause';panel.appendChild(h);
if(!f){var p=document.createElement('p');p.className='note';p.textContent=X.all?'No host data for this rank.':
'Not embedded (only the ranks with the most Free and the slow ranks are): see free_breakdown.csv.';panel.appendChild(p);return;}
table(panel,['step','Free','data','compile','sync','GC','dispatch','unattributed'],f.map(function(r){
return [r[0]].concat(r.slice(1).map(fmt));}));
var h2=document.createElement('h3');h2.textContent='Its host-heaviest operators';panel.appendChild(h2);
if(!o||!o.length){var q=document.createElement('p');q.className='note';q.textContent='No host operators were read for this rank.';panel.appendChild(q);return;}
table(panel,['operator','calls','host self','device self','launches','mean launch delay'],o.map(function(r){
return [r[0],r[1],fmt(r[2]),fmt(r[3]),r[4],r[4]>0?fmt(r[5]):'\u2013'];}),o.map(function(r){return r[6]>0;}));};})();
)JS";

}  // namespace

void host_drill_data(HtmlOut& h, const ClusterContext& ctx) {
  const io::Table* fb = ctx.in.free_breakdown;
  if (rows(fb) == 0) return;
  const std::set<long long> keep = embedded_ranks(ctx, fb);
  std::map<long long, std::string> free, ops;
  std::map<long long, size_t> steps;
  const ColumnRef rank(fb, "rank"), step(fb, "step");
  ColumnRef part[std::size(kParts)];
  for (size_t c = 0; c < std::size(kParts); ++c) part[c] = ColumnRef(fb, kParts[c]);
  for (size_t r = 0; r < rows(fb); ++r) {
    const long long rk = rank.integer(r);
    if (!keep.count(rk) || steps[rk]++ >= kStepsPerRank) continue;
    std::string& j = free[rk];
    j += (j.empty() ? "[[" : ",[") + std::to_string(step.integer(r));
    for (const auto& p : part) j += "," + num(p.num(r));
    j += "]";
  }
  const io::Table* ro = ctx.in.host_rank_ops;
  const ColumnRef orank(ro, "rank"), name(ro, "operator"), calls(ro, "calls"),
      self(ro, "host_self_us"), dev(ro, "device_self_us"), launches(ro, "launches"),
      delay(ro, "launch_delay_mean_us"), bound(ro, "host_bound");
  for (size_t r = 0; r < rows(ro); ++r) {
    const long long rk = orank.integer(r);
    if (!keep.count(rk)) continue;
    std::string& j = ops[rk];
    j += (j.empty() ? "[[" : ",[") + json_string(name.str(r)) + "," + num(calls.num(r)) + "," +
         num(self.num(r)) + "," + num(dev.num(r)) + "," + num(launches.num(r)) + "," +
         num(delay.num(r)) + "," + (bound.num(r) > 0 ? "1" : "0") + "]";
  }
  std::string j = "{\"all\":" + std::string(keep.size() == steps.size() ? "true" : "false");
  for (const auto& [key, m] : {std::pair{"f", &free}, {"o", &ops}}) {
    j += std::string(",\"") + key + "\":{";
    bool first = true;
    for (const auto& [rk, rowsj] : *m) {
      j += (first ? "\"" : ",\"") + std::to_string(rk) + "\":" + rowsj + "]";
      first = false;
    }
    j += "}";
  }
  j += "}";
  h.open("script", attr("type", "application/json") + attr("id", "cs-host"));
  h.raw(j);
  h.close();
  h.open("script");
  h.raw(kScript);
  h.close();
}

}  // namespace cs::report
