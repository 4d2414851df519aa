#include "compare/communication_compare.h"

#include <cctype>
#include <map>

#include "compare/diff.h"
#include "compare/kernel_stats.h"

namespace cs::compare {

namespace {

std::string letters_lower(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string collective_type(std::string_view name, std::string_view collective_arg) {
  if (!collective_arg.empty()) {
    auto t = letters_lower(collective_arg);
    if (t == "recv") t = "receive";
    return t;
  }
  std::string_view rest = name;
  if (auto p = rest.find('('); p != std::string_view::npos) rest = rest.substr(0, p);
  if (rest.substr(0, 5) == "hcom_") {
    rest.remove_prefix(5);
  } else if (rest.substr(0, 4) == "nccl") {
    // ncclKernel_X_..., ncclDevKernel_X_..., ncclDevKernel_X: the word after "Kernel_".
    auto p = rest.find("Kernel_");
    rest = p == std::string_view::npos ? rest.substr(4) : rest.substr(p + 7);
  }
  const auto end = rest.find('_');
  std::string t = letters_lower(rest.substr(0, end));
  if (t == "recv") t = "receive";
  return t.empty() ? std::string("unknown") : t;
}

io::Table communication_compare_table(const Profile& base, const Profile& comparison) {
  std::map<std::string, std::pair<DurationStats, DurationStats>> by_type;
  auto collect = [&](const Profile& p, bool is_base) {
    for (const auto& k : p.kernels) {
      if (!k.communication) continue;
      std::string_view arg;
      if (k.collective >= 0)
        arg = p.str(p.trace.collectives[static_cast<size_t>(k.collective)].collective_name);
      auto& s = by_type[collective_type(p.str(k.name), arg)];
      (is_base ? s.first : s.second).add(k.dur_us);
    }
  };
  collect(base, true);
  collect(comparison, false);

  io::Table t("communication_compare");
  auto& type = t.add_string("op_type");
  struct Side {
    io::Column *calls, *total, *avg, *max, *min;
  };
  auto side = [&](const std::string& p) {
    Side s;
    s.calls = &t.add_int(p + "_calls");
    s.total = &t.add_double(p + "_total_us", "us");
    s.avg = &t.add_double(p + "_avg_us", "us");
    s.max = &t.add_double(p + "_max_us", "us");
    s.min = &t.add_double(p + "_min_us", "us");
    return s;
  };
  Side b = side("base"), c = side("comparison");
  auto& diff = t.add_double("diff_us", "us");
  auto& ratio = t.add_double("diff_ratio", "ratio");
  auto put = [](Side& s, const DurationStats& d) {
    s.calls->ints.push_back(d.count);
    s.total->doubles.push_back(d.total);
    s.avg->doubles.push_back(d.avg());
    s.max->doubles.push_back(d.max);
    s.min->doubles.push_back(d.min_or_zero());
  };
  for (const auto& [name, st] : by_type) {
    type.strings.push_back(name);
    put(b, st.first);
    put(c, st.second);
    diff.doubles.push_back(st.second.total - st.first.total);
    ratio.doubles.push_back(diff_ratio(st.first.total, st.second.total));
  }
  return t;
}

}  // namespace cs::compare
