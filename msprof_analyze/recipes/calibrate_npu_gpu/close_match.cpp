#include "msprof_analyze/recipes/calibrate_npu_gpu/close_match.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <utility>

namespace cs::recipes::calibrate_npu_gpu {

namespace {

// UTF-8 to code points; a byte that does not start a valid sequence stands for itself.
std::u32string decode(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out.push_back(b);
      ++i;
      continue;
    }
    char32_t cp = len == 1 ? b : b & (0x7F >> len);
    bool ok = true;
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = ok && (c >> 6) == 2;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(b);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

// difflib's SequenceMatcher for a fixed b (seq2) and any a (seq1).
class Matcher {
 public:
  explicit Matcher(std::u32string b) : b_(std::move(b)) {
    for (size_t j = 0; j < b_.size(); ++j) b2j_[b_[j]].push_back(static_cast<int>(j));
    if (b_.size() >= 200) {  // autojunk: popular characters are dropped from b2j
      const size_t ntest = b_.size() / 100 + 1;
      for (auto it = b2j_.begin(); it != b2j_.end();)
        it = it->second.size() > ntest ? b2j_.erase(it) : std::next(it);
    }
  }

  // Characters in the matching blocks of a and b.
  int matches(const std::u32string& a) {
    a_ = &a;
    int total = 0;
    std::vector<std::array<int, 4>> queue{
        {0, static_cast<int>(a.size()), 0, static_cast<int>(b_.size())}};
    while (!queue.empty()) {
      const auto [alo, ahi, blo, bhi] = queue.back();
      queue.pop_back();
      const auto [i, j, k] = longest(alo, ahi, blo, bhi);
      if (k == 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push_back({alo, i, blo, j});
      if (i + k < ahi && j + k < bhi) queue.push_back({i + k, ahi, j + k, bhi});
    }
    return total;
  }

  size_t size() const { return b_.size(); }

 private:
  // find_longest_match: the longest block in a[alo:ahi] x b[blo:bhi], the earliest in a, then in
  // b; extended over equal characters on both sides (no junk without an isjunk function).
  std::array<int, 3> longest(int alo, int ahi, int blo, int bhi) {
    const std::u32string& a = *a_;
    int besti = alo, bestj = blo, bestsize = 0;
    std::unordered_map<int, int> j2len, next;
    for (int i = alo; i < ahi; ++i) {
      next.clear();
      auto it = b2j_.find(a[static_cast<size_t>(i)]);
      if (it != b2j_.end()) {
        for (int j : it->second) {
          if (j < blo) continue;
          if (j >= bhi) break;
          auto prev = j2len.find(j - 1);
          const int k = (prev == j2len.end() ? 0 : prev->second) + 1;
          next[j] = k;
          if (k > bestsize) besti = i - k + 1, bestj = j - k + 1, bestsize = k;
        }
      }
      std::swap(j2len, next);
    }
    while (besti > alo && bestj > blo &&
           a[static_cast<size_t>(besti - 1)] == b_[static_cast<size_t>(bestj - 1)])
      --besti, --bestj, ++bestsize;
    while (besti + bestsize < ahi && bestj + bestsize < bhi &&
           a[static_cast<size_t>(besti + bestsize)] == b_[static_cast<size_t>(bestj + bestsize)])
      ++bestsize;
    return {besti, bestj, bestsize};
  }

  std::u32string b_;
  std::unordered_map<char32_t, std::vector<int>> b2j_;
  const std::u32string* a_ = nullptr;
};

double ratio_of(int matches, size_t length) {
  return length ? 2.0 * matches / static_cast<double>(length) : 1.0;
}

}  // namespace

double sequence_ratio(const std::string& a, const std::string& b) {
  Matcher m(decode(b));
  const std::u32string da = decode(a);
  return ratio_of(m.matches(da), da.size() + m.size());
}

std::optional<std::string> best_close_match(const std::string& word,
                                            const std::vector<std::string>& candidates,
                                            double cutoff) {
  Matcher m(decode(word));
  std::optional<std::pair<double, std::string>> best;
  for (const std::string& c : candidates) {
    const std::u32string a = decode(c);
    const size_t length = a.size() + m.size();
    // real_quick_ratio: an upper bound from the lengths alone.
    if (ratio_of(static_cast<int>(std::min(a.size(), m.size())), length) < cutoff) continue;
    const double r = ratio_of(m.matches(a), length);
    if (r < cutoff) continue;
    if (!best || r > best->first || (r == best->first && c > best->second)) best.emplace(r, c);
  }
  if (!best) return std::nullopt;
  return best->second;
}

}  // namespace cs::recipes::calibrate_npu_gpu
