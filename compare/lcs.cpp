#include "compare/lcs.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace cs::compare {

namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

// Match masks of b in sparse form: for each symbol, the (word, bits) where it occurs. Symbols are
// dense (remapped once at the top), so the index is a plain vector; only touched slots are reset.
class MatchMasks {
 public:
  explicit MatchMasks(uint32_t alphabet) : head_(alphabet, -1) {}

  void build(const uint32_t* b, size_t m) {
    for (uint32_t s : touched_) head_[s] = -1;
    touched_.clear();
    entries_.clear();
    // Group positions by symbol with a counting pass: first count, then place in word order.
    counts_.clear();
    for (size_t j = 0; j < m; ++j) {
      if (head_[b[j]] < 0) {
        head_[b[j]] = static_cast<int32_t>(touched_.size());
        touched_.push_back(b[j]);
        counts_.push_back(0);
      }
      ++counts_[static_cast<size_t>(head_[b[j]])];
    }
    start_.assign(touched_.size() + 1, 0);
    for (size_t k = 0; k < touched_.size(); ++k) start_[k + 1] = start_[k] + counts_[k];
    fill_ = start_;
    entries_.resize(m);
    for (size_t j = 0; j < m; ++j) {
      const auto slot = static_cast<size_t>(head_[b[j]]);
      auto& pos = fill_[slot];
      const uint32_t word = static_cast<uint32_t>(j >> 6);
      const uint64_t bit = uint64_t{1} << (j & 63);
      if (pos > start_[slot] && entries_[pos - 1].word == word) {
        entries_[pos - 1].bits |= bit;
      } else {
        entries_[pos++] = {word, bit};
      }
    }
    // Entries past fill_[slot] within a slot are unused (merged); record the real ends.
    end_ = fill_;
  }

  struct Entry {
    uint32_t word;
    uint64_t bits;
  };
  // Entries of symbol s in word order, or an empty range when s is not in b.
  std::pair<const Entry*, const Entry*> of(uint32_t s) const {
    if (s >= head_.size() || head_[s] < 0) return {nullptr, nullptr};
    const auto slot = static_cast<size_t>(head_[s]);
    return {entries_.data() + start_[slot], entries_.data() + end_[slot]};
  }

 private:
  std::vector<int32_t> head_;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> counts_;
  std::vector<size_t> start_, fill_, end_;
  std::vector<Entry> entries_;
};

// row[j] = LCS(a[0..n), b[0..j)) for j = 0..m, bit-parallel (Hyyrö 2004):
//   U = V & PM[c];  V = (V + U) | (V & ~PM[c]);  zeros of V among the first j bits = row[j].
void lcs_row(const uint32_t* a, size_t n, const uint32_t* b, size_t m, MatchMasks& masks,
             std::vector<uint64_t>& v, std::vector<int32_t>& row) {
  masks.build(b, m);
  const size_t words = (m + 63) / 64;
  v.assign(words, ~uint64_t{0});
  for (size_t i = 0; i < n; ++i) {
    auto [it, end] = masks.of(a[i]);
    if (it == end) continue;  // symbol absent from b: V unchanged
    uint64_t carry = 0;
    // Words before the first match word only propagate a carry, which is 0 there: skip them.
    for (size_t w = it->word; w < words; ++w) {
      uint64_t pm = 0;
      if (it != end && it->word == w) {
        pm = it->bits;
        ++it;
      } else if (carry == 0 && it == end) {
        break;  // nothing left to add and no carry: the rest of V is unchanged
      }
      const uint64_t x = v[w];
      const uint64_t u = x & pm;
      uint64_t sum;
      const uint64_t c1 = __builtin_add_overflow(x, u, &sum);
      const uint64_t c2 = __builtin_add_overflow(sum, carry, &sum);
      carry = c1 | c2;
      v[w] = sum | (x & ~pm);
    }
  }
  row.resize(m + 1);
  row[0] = 0;
  int32_t zeros = 0;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t z = ~v[w];
    const size_t bits = std::min<size_t>(64, m - w * 64);
    for (size_t k = 0; k < bits; ++k) {
      zeros += static_cast<int32_t>((z >> k) & 1);
      row[w * 64 + k + 1] = zeros;
    }
  }
}

class Aligner {
 public:
  Aligner(std::vector<uint32_t> a, std::vector<uint32_t> b, uint32_t alphabet)
      : a_(std::move(a)), b_(std::move(b)), masks_(alphabet) {}

  Pairs run() {
    solve(0, a_.size(), 0, b_.size());
    return std::move(out_);
  }

 private:
  // Appends the matches of a[alo, ahi) against b[blo, bhi) in ascending order.
  void solve(size_t alo, size_t ahi, size_t blo, size_t bhi) {
    while (alo < ahi && blo < bhi && a_[alo] == b_[blo]) out_.emplace_back(alo++, blo++);
    size_t tail = 0;
    while (ahi - tail > alo && bhi - tail > blo && a_[ahi - 1 - tail] == b_[bhi - 1 - tail]) ++tail;
    ahi -= tail;
    bhi -= tail;
    const size_t n = ahi - alo, m = bhi - blo;
    if (n > 0 && m > 0) {
      if (n == 1) {
        for (size_t j = blo; j < bhi; ++j)
          if (b_[j] == a_[alo]) {
            out_.emplace_back(alo, j);
            break;
          }
      } else if (n * m <= (1u << 16)) {
        quadratic(alo, ahi, blo, bhi);
      } else {
        split(alo, ahi, blo, bhi);
      }
    }
    for (size_t k = 0; k < tail; ++k) out_.emplace_back(ahi + k, bhi + k);
  }

  void split(size_t alo, size_t ahi, size_t blo, size_t bhi) {
    const size_t n = ahi - alo, m = bhi - blo, mid = alo + n / 2;
    lcs_row(a_.data() + alo, mid - alo, b_.data() + blo, m, masks_, v_, fwd_);
    rev_a_.assign(a_.rbegin() + static_cast<std::ptrdiff_t>(a_.size() - ahi),
                  a_.rbegin() + static_cast<std::ptrdiff_t>(a_.size() - mid));
    rev_b_.assign(b_.rbegin() + static_cast<std::ptrdiff_t>(b_.size() - bhi),
                  b_.rbegin() + static_cast<std::ptrdiff_t>(b_.size() - blo));
    lcs_row(rev_a_.data(), rev_a_.size(), rev_b_.data(), m, masks_, v_, bwd_);
    size_t best_k = 0;
    int64_t best = -1;
    for (size_t k = 0; k <= m; ++k) {
      const int64_t s = int64_t{fwd_[k]} + bwd_[m - k];
      if (s > best) {
        best = s;
        best_k = k;
      }
    }
    solve(alo, mid, blo, blo + best_k);
    solve(mid, ahi, blo + best_k, bhi);
  }

  // Classic DP with traceback for small blocks (at most 64 Ki cells).
  void quadratic(size_t alo, size_t ahi, size_t blo, size_t bhi) {
    const size_t n = ahi - alo, m = bhi - blo;
    dp_.assign((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint16_t& { return dp_[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a_[alo + i] == b_[blo + j] ? static_cast<uint16_t>(at(i + 1, j + 1) + 1)
                                              : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a_[alo + i] == b_[blo + j]) {
        out_.emplace_back(alo + i, blo + j);
        ++i;
        ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        ++i;
      } else {
        ++j;
      }
    }
  }

  std::vector<uint32_t> a_, b_;
  MatchMasks masks_;
  Pairs out_;
  std::vector<uint64_t> v_;
  std::vector<int32_t> fwd_, bwd_;
  std::vector<uint32_t> rev_a_, rev_b_;
  std::vector<uint16_t> dp_;
};

// Remaps both sequences to dense symbols 0..K-1 (K = distinct symbols in a and b).
uint32_t densify(std::span<const uint32_t> a, std::span<const uint32_t> b,
                 std::vector<uint32_t>& da, std::vector<uint32_t>& db) {
  std::unordered_map<uint32_t, uint32_t> ids;
  ids.reserve(a.size() + b.size());
  auto map = [&](std::span<const uint32_t> in, std::vector<uint32_t>& out) {
    out.resize(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      out[i] = ids.try_emplace(in[i], static_cast<uint32_t>(ids.size())).first->second;
  };
  map(a, da);
  map(b, db);
  return static_cast<uint32_t>(ids.size());
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> lcs_align(std::span<const uint32_t> a,
                                                     std::span<const uint32_t> b) {
  std::vector<uint32_t> da, db;
  const uint32_t k = densify(a, b, da, db);
  return Aligner(std::move(da), std::move(db), k).run();
}

size_t lcs_length(std::span<const uint32_t> a, std::span<const uint32_t> b) {
  std::vector<uint32_t> da, db;
  MatchMasks masks(densify(a, b, da, db));
  std::vector<uint64_t> v;
  std::vector<int32_t> row;
  lcs_row(da.data(), da.size(), db.data(), db.size(), masks, v, row);
  return static_cast<size_t>(row.back());
}

}  // namespace cs::compare
