#pragma once
// "Is this a Total Op Info / derived key?", spelled once. communication.json has, per step, one
// summary entry "Total Op Info" beside the real ops; communication_matrix.json adds statistics
// over each op's instances ("allreduce-top1@<group>", "-middle", "-bottom1..3", "-total"); the
// cluster documents key their summaries "Total Op Info@<group>". Analyses that want real
// transfers skip these keys; msprof-analyze's documents follow msprof-analyze's own, looser tests
// (the msprof_* predicates below), which differ only on op names no producer writes and are kept
// so our documents match msprof-analyze's byte for byte even on such names.

#include <cstddef>
#include <string_view>

namespace cs::io {

inline constexpr std::string_view kTotalOpInfo = "Total Op Info";

// "Total Op Info" or "Total Op Info@<group>".
inline bool is_total_op_info(std::string_view key) {
  return key.substr(0, kTotalOpInfo.size()) == kTotalOpInfo &&
         (key.size() == kTotalOpInfo.size() || key[kTotalOpInfo.size()] == '@');
}

// A matrix key that is not one op's own transfers: a Total Op Info, or a statistic over the op's
// instances ("<op>-top1", "-middle", "-bottomN"; the group after '@' is not looked at).
inline bool is_derived_matrix_key(std::string_view op_key) {
  const std::string_view op = op_key.substr(0, op_key.rfind('@'));
  if (op == kTotalOpInfo) return true;
  for (std::string_view s : {"-top", "-middle", "-bottom"})
    if (op.find(s) != std::string_view::npos) return true;
  return false;
}

// A matrix key that sums the op's instances: it contains "-total" in any case
// ("allreduce-total@<group>", "-Total"). The report sums these for a group without a Total Op
// Info.
inline bool is_matrix_total_key(std::string_view op_key) {
  constexpr std::string_view kTotal = "-total";
  for (size_t i = 0; i + kTotal.size() <= op_key.size(); ++i) {
    size_t k = 0;
    for (; k < kTotal.size(); ++k) {
      const char c = op_key[i + k];
      if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kTotal[k]) break;
    }
    if (k == kTotal.size()) return true;
  }
  return false;
}

// msprof-analyze's quirk: op_name.startswith(Constant.TOTAL), TOTAL = "Total" — any key that
// begins with "Total" is a summary entry (and is left out of the per-op documents).
inline bool msprof_is_total(std::string_view key) {
  return key.substr(0, 5) == "Total";
}

// CANN msprof's flat communication files (PROF_*/analyze/, docs/formats.md §1b): msprof-analyze's
// adapters skip every key whose lower-cased text starts with "total" ("Total Op Info", "TOTAL").
inline bool msprof_flat_is_total(std::string_view key) {
  constexpr std::string_view kTotal = "total";
  if (key.size() < kTotal.size()) return false;
  for (size_t i = 0; i < kTotal.size(); ++i) {
    const char c = key[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kTotal[i]) return false;
  }
  return true;
}

// msprof-analyze's quirk when it sums Total Op Info@<group> in cluster_communication_matrix.json:
// it leaves out every key containing "middle", "top" or "bottom" anywhere, without the dash, so
// an op whose own name holds "top" would be left out of the sum too.
inline bool msprof_is_matrix_statistic_key(std::string_view key) {
  return key.find("middle") != std::string_view::npos ||
         key.find("top") != std::string_view::npos || key.find("bottom") != std::string_view::npos;
}

}  // namespace cs::io
