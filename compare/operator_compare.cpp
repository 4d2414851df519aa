#include "compare/operator_compare.h"

#include <string>
#include <unordered_map>

#include "compare/diff.h"
#include "compare/lcs.h"

namespace cs::compare {

std::vector<int32_t> operator_sequence(const Profile& p, int64_t max_kernel_num) {
  std::vector<int32_t> out;
  std::vector<int32_t> stack(p.roots.rbegin(), p.roots.rend());
  while (!stack.empty()) {
    const int32_t id = stack.back();
    stack.pop_back();
    const auto& op = p.ops[static_cast<size_t>(id)];
    if (max_kernel_num >= 0 && op.kernel_count > max_kernel_num && !op.children.empty()) {
      stack.insert(stack.end(), op.children.rbegin(), op.children.rend());
    } else {
      out.push_back(id);
    }
  }
  return out;
}

io::Table operator_compare_table(const Profile& base, const Profile& comparison,
                                 const OperatorCompareOptions& opt) {
  const auto sb = operator_sequence(base, opt.max_kernel_num);
  const auto sc = operator_sequence(comparison, opt.max_kernel_num);
  std::unordered_map<std::string, uint32_t> ids;
  auto symbols = [&](const Profile& p, const std::vector<int32_t>& seq) {
    std::vector<uint32_t> out;
    out.reserve(seq.size());
    std::string key;
    for (int32_t id : seq) {
      const auto& op = p.ops[static_cast<size_t>(id)];
      const auto name = p.str(op.name);
      key.assign(opt.name_map ? opt.name_map->canonical(name) : name);
      if (opt.use_input_shape) key.append("\x1f").append(p.str(op.input_dims));
      out.push_back(ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second);
    }
    return out;
  };
  const auto ab = symbols(base, sb);
  const auto ac = symbols(comparison, sc);
  const auto pairs = lcs_align(ab, ac);

  io::Table t("operator_compare");
  auto& order = t.add_int("order");
  auto& bop = t.add_string("base_op");
  auto& cop = t.add_string("comparison_op");
  auto& bshape = t.add_string("base_input_shape");
  auto& cshape = t.add_string("comparison_input_shape");
  auto& bdev = t.add_double("base_device_us", "us");
  auto& cdev = t.add_double("comparison_device_us", "us");
  auto& bk = t.add_int("base_kernel_count");
  auto& ck = t.add_int("comparison_kernel_count");
  auto& diff = t.add_double("diff_us", "us");
  auto& ratio = t.add_double("diff_ratio", "ratio");
  auto row = [&](int32_t b, int32_t c) {
    const OpNode* ob = b >= 0 ? &base.ops[static_cast<size_t>(b)] : nullptr;
    const OpNode* oc = c >= 0 ? &comparison.ops[static_cast<size_t>(c)] : nullptr;
    order.ints.push_back(static_cast<int64_t>(order.ints.size()));
    bop.strings.emplace_back(ob ? base.str(ob->name) : "");
    cop.strings.emplace_back(oc ? comparison.str(oc->name) : "");
    bshape.strings.emplace_back(ob ? base.str(ob->input_dims) : "");
    cshape.strings.emplace_back(oc ? comparison.str(oc->input_dims) : "");
    const double bu = ob ? ob->device_us : 0, cu = oc ? oc->device_us : 0;
    bdev.doubles.push_back(bu);
    cdev.doubles.push_back(cu);
    bk.ints.push_back(ob ? ob->kernel_count : 0);
    ck.ints.push_back(oc ? oc->kernel_count : 0);
    diff.doubles.push_back(cu - bu);
    ratio.doubles.push_back(diff_ratio(bu, cu));
  };
  size_t i = 0, j = 0;
  auto flush_to = [&](size_t ie, size_t je) {
    for (; i < ie; ++i) row(sb[i], -1);
    for (; j < je; ++j) row(-1, sc[j]);
  };
  for (const auto& [pi, pj] : pairs) {
    flush_to(pi, pj);
    row(sb[i++], sc[j++]);
  }
  flush_to(sb.size(), sc.size());
  return t;
}

}  // namespace cs::compare
