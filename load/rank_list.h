#pragma once
// Rank lists as users write them (--rank-list "0,2,8-15") and as messages print them ("0-3,20").

#include <set>
#include <string>
#include <string_view>

namespace cs::load {

// Parses a rank list "0,2,8-15" into a set. Returns false with `error` set ("'8-x' is not a
// rank or a range A-B") on bad syntax, negative numbers or reversed ranges.
bool parse_rank_list(std::string_view text, std::set<int>& out, std::string& error);

// A rank set as ranges: {0,1,2,3,20,30} -> "0-3,20,30".
std::string format_rank_set(const std::set<int>& ranks);

}  // namespace cs::load
