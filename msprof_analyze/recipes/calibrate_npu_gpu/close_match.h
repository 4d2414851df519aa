#pragma once
// Python's difflib.get_close_matches(word, candidates, n=1, cutoff), which msprof-analyze's
// calibrate_npu_gpu uses to pair an NPU module with a GPU module of a similar path: the
// candidate with the highest SequenceMatcher ratio 2*M/T (M: characters in the matching blocks
// Ratcliff/Obershelp finds, T: both lengths) at or above the cutoff, the greater string on a tie.
// Strings are compared by Unicode code point (UTF-8 decoded), with difflib's "autojunk" rule: in
// a word of 200 or more characters, a character occurring more than 1% (+1) of the time does
// not start a match.

#include <optional>
#include <string>
#include <vector>

namespace cs::recipes::calibrate_npu_gpu {

// SequenceMatcher(None, a, b).ratio(). Example: ratio("abcd", "bcde") = 0.75.
double sequence_ratio(const std::string& a, const std::string& b);

// The best of `candidates` for `word` (nullopt: none reaches `cutoff`).
std::optional<std::string> best_close_match(const std::string& word,
                                            const std::vector<std::string>& candidates,
                                            double cutoff);

}  // namespace cs::recipes::calibrate_npu_gpu
