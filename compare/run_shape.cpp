#include "compare/run_shape.h"

#include <algorithm>
#include <map>
#include <set>

namespace cs::compare {

namespace {

using load::RankData;

// "step3" -> "3" (communication.json's step names as step_trace_time.csv writes them).
std::string bare(const std::string& s) {
  return s.rfind("step", 0) == 0 && s.size() > 4 ? s.substr(4) : s;
}

bool numeric_less(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

std::vector<int> ranks_of(const std::vector<RankData>& r) {
  std::vector<int> out;
  for (const auto& d : r) out.push_back(d.rank());
  std::sort(out.begin(), out.end());
  return out;
}

std::string list(const std::vector<std::string>& steps) {
  if (steps.empty()) return "none";
  bool consecutive = steps.size() > 2;
  for (size_t i = 1; i < steps.size() && consecutive; ++i)
    consecutive = steps[i - 1].find_first_not_of("0123456789") == std::string::npos &&
                  steps[i].find_first_not_of("0123456789") == std::string::npos &&
                  !steps[i].empty() && std::stoll(steps[i]) == std::stoll(steps[i - 1]) + 1;
  if (consecutive) return steps.front() + "-" + steps.back();
  std::string out;
  for (size_t i = 0; i < steps.size() && i < 8; ++i) out += (i ? "," : "") + steps[i];
  return steps.size() > 8 ? out + ",\u2026" : out;
}

}  // namespace

std::string describe_ranks(const std::vector<int>& r) {
  std::string out = std::to_string(r.size()) + (r.size() == 1 ? " rank (" : " ranks (");
  bool consecutive = r.size() > 2;
  for (size_t i = 1; i < r.size() && consecutive; ++i) consecutive = r[i] == r[i - 1] + 1;
  if (consecutive) return out + std::to_string(r.front()) + "-" + std::to_string(r.back()) + ")";
  for (size_t i = 0; i < r.size() && i < 8; ++i) out += (i ? "," : "") + std::to_string(r[i]);
  return out + (r.size() > 8 ? ",\u2026)" : ")");
}

std::string shape_mismatch(const std::vector<RankData>& base, const std::vector<RankData>& comp) {
  const auto b = ranks_of(base), c = ranks_of(comp);
  if (b == c) return "";
  return "the runs differ in shape: the base has " + describe_ranks(b) + ", the comparison " +
         describe_ranks(c);
}

std::vector<std::string> run_steps(const std::vector<RankData>& ranks) {
  std::set<std::string> s;
  for (const auto& d : ranks) {
    readers::StepTraceFile scratch;
    for (const auto& row : d.step_trace.read(scratch).rows) s.insert(bare(row.step));
    readers::CommunicationFile unpacked;  // filled only if the rank is held packed
    for (const auto& st : d.communication.read(unpacked).steps) s.insert(bare(st.step));
  }
  std::vector<std::string> out(s.begin(), s.end());
  std::sort(out.begin(), out.end(), numeric_less);
  return out;
}

std::vector<std::string> align_steps(std::vector<RankData>& base, std::vector<RankData>& comp) {
  const auto bs = run_steps(base), cs = run_steps(comp);
  if (bs == cs || bs.empty() || cs.empty()) return {};
  const size_t n = std::min(bs.size(), cs.size());
  std::map<std::string, std::string> rename;  // comparison step -> base step
  for (size_t i = 0; i < n; ++i) rename[cs[i]] = bs[i];
  std::set<std::string> keep_base(bs.begin(), bs.begin() + static_cast<long>(n));
  for (auto& d : base) {
    std::erase_if(d.step_trace.edit().rows,
                  [&](const auto& row) { return !keep_base.count(bare(row.step)); });
    std::erase_if(d.communication.edit().steps,
                  [&](const auto& st) { return !keep_base.count(bare(st.step)); });
  }
  for (auto& d : comp) {
    std::erase_if(d.step_trace.edit().rows,
                  [&](const auto& row) { return !rename.count(bare(row.step)); });
    std::erase_if(d.communication.edit().steps,
                  [&](const auto& st) { return !rename.count(bare(st.step)); });
    for (auto& row : d.step_trace.edit().rows) row.step = rename[bare(row.step)];
    for (auto& st : d.communication.edit().steps) {
      const bool prefixed = st.step.rfind("step", 0) == 0;
      st.step = (prefixed ? "step" : "") + rename[bare(st.step)];
    }
  }
  std::string w = "the runs profiled different steps: the base " + list(bs) + ", the comparison " +
                  list(cs) + "; step " + cs.front() + " of the comparison is compared with step " +
                  bs.front() + " of the base, and so on in order";
  if (bs.size() != cs.size())
    w += "; only the first " + std::to_string(n) + " steps of each run are compared";
  return {w};
}

}  // namespace cs::compare
