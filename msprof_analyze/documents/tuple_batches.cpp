#include "msprof_analyze/documents/tuple_batches.h"

#include <algorithm>

namespace cs::documents {

void count_group(GroupCounts& seen, const CommGroup* g, size_t n) {
  auto it = std::find_if(seen.rbegin(), seen.rend(), [g](auto& x) { return x.first == g; });
  if (it != seen.rend()) {
    it->second += n;
  } else {
    seen.emplace_back(g, n);
  }
}

TupleBatches::TupleBatches(std::vector<GroupCounts>& seen, size_t budget) {
  std::unordered_map<std::string, uint32_t> tuple_index;
  for (size_t r = 0; r < seen.size(); ++r) {
    for (const auto& [g, count] : seen[r]) {
      auto [it, fresh] = tuple_of_.try_emplace(g, 0);
      if (fresh) {
        std::string key = g ? g->tuple_key() : "()";
        auto [t, added] = tuple_index.try_emplace(key, static_cast<uint32_t>(keys_.size()));
        if (added) {
          keys_.push_back(std::move(key));
          ranks_.emplace_back();
          reports_.push_back(0);
        }
        it->second = t->second;
      }
      std::vector<uint32_t>& reporters = ranks_[it->second];
      if (reporters.empty() || reporters.back() != r) reporters.push_back(static_cast<uint32_t>(r));
      reports_[it->second] += count;
    }
    GroupCounts().swap(seen[r]);
  }
  size_t in_batch = 0;
  for (size_t t = 0; t < keys_.size(); ++t) {
    if (in_batch == 0) batch_begin_.push_back(t);
    in_batch += reports_[t];
    if (in_batch >= budget) in_batch = 0;
  }
  if (!batch_begin_.empty()) batch_begin_.push_back(keys_.size());
}

std::vector<uint32_t> TupleBatches::readers(size_t i) const {
  std::vector<uint32_t> out;
  for (size_t t = begin(i); t < end(i); ++t)
    out.insert(out.end(), ranks_[t].begin(), ranks_[t].end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace cs::documents
