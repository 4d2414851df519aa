#include "readers/msprof_matrix_adapter.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "io/comm_keys.h"
#include "readers/communication.h"

namespace cs::readers {

namespace {

// The links of one (op type, group, link) in instance order.
struct LinkRecords {
  std::string type, group;
  uint32_t link_id;
  std::vector<MatrixLink> records;
};

// One output key's MatrixOp, found by name (keys are created in msprof-analyze's dict order).
class KeyedOps {
 public:
  explicit KeyedOps(std::vector<MatrixOp>& out) : out_(out) {}
  MatrixOp& at(const std::string& key) {
    auto [it, fresh] = index_.try_emplace(key, out_.size());
    if (fresh) out_.emplace_back().key = key;
    return out_[it->second];
  }

 private:
  std::vector<MatrixOp>& out_;
  std::map<std::string, size_t> index_;
};

// The "-total" record of one link's records (sorted, fastest first).
MatrixLink total_of(const std::vector<MatrixLink>& data, uint32_t link_id) {
  MatrixLink t;
  t.link_id = link_id;
  t.transport = data.front().transport;
  t.src_local = data.front().src_local;
  t.dst_local = data.front().dst_local;
  io::Num size = io::Num::integer(0), time = io::Num::integer(0);
  for (const MatrixLink& x : data) {
    if (x.has(kLinkSizeMb)) size += x.num(kLinkSizeMb);
    if (x.has(kLinkTimeMs)) time += x.num(kLinkTimeMs);
  }
  t.set(kLinkSizeMb, size);
  t.set(kLinkTimeMs, time);
  const bool zero = time.v < 1e-15 && time.v > -1e-15;
  t.set(kLinkBandwidthGbps,
        zero ? io::Num::integer(0) : io::Num::real(io::py_round(size.v / time.v, 4)));
  return t;
}

void integrate(std::vector<LinkRecords>& groups, std::vector<MatrixOp>& out) {
  KeyedOps ops(out);
  auto put = [&](const LinkRecords& g, const char* label, const MatrixLink& l) {
    ops.at(g.type + "-" + label + "@" + g.group).links.push_back(l);
  };
  for (LinkRecords& g : groups) {
    std::vector<MatrixLink>& data = g.records;
    std::stable_sort(data.begin(), data.end(), [](const MatrixLink& a, const MatrixLink& b) {
      return a.get(kLinkBandwidthGbps) > b.get(kLinkBandwidthGbps);
    });
    const size_t n = data.size();
    put(g, "top1", data[0]);
    put(g, "middle", data[n / 2]);
    put(g, "bottom1", data[n - 1]);
    put(g, "total", total_of(data, g.link_id));
    if (n >= 2) put(g, "bottom2", data[n - 2]);
    if (n >= 3) put(g, "bottom3", data[n - 3]);
  }
}

// get_comm_type: the records of one category, per (type, group, link) in first-seen order.
std::vector<LinkRecords> by_type(std::vector<MatrixOp>& instances, MatrixFile& file,
                                 std::vector<std::string>* unknown_types) {
  std::vector<LinkRecords> groups;
  std::map<std::tuple<std::string, std::string, uint32_t>, size_t> index;
  for (MatrixOp& op : instances) {
    const std::string_view key = op.key;
    std::string type = matrix_op_type(key);
    if (type.empty()) {
      type = std::string(key.substr(0, key.find("__")));
      if (unknown_types &&
          std::find(unknown_types->begin(), unknown_types->end(), type) == unknown_types->end())
        unknown_types->push_back(type);
    }
    const size_t last_at = key.rfind('@');
    const std::string group(last_at == std::string_view::npos ? key : key.substr(last_at + 1));
    const uint32_t op_name = file.keep(key.substr(0, key.find('@')));
    for (MatrixLink& l : op.links) {
      l.op_name_id = op_name;
      l.has_op_name = true;
      auto [it, fresh] = index.try_emplace({type, group, l.link_id}, groups.size());
      if (fresh) groups.push_back({type, group, l.link_id, {}});
      groups[it->second].records.push_back(l);
    }
  }
  return groups;
}

// A link written twice in one instance: the last value at the first one's place (a Python dict).
void keep_last_link(MatrixOp& op) {
  for (size_t i = 0; i < op.links.size(); ++i)
    for (size_t j = i + 1; j < op.links.size();) {
      if (op.links[j].link_id == op.links[i].link_id) {
        op.links[i] = op.links[j];
        op.links.erase(op.links.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
}

}  // namespace

MatrixStep adapt_msprof_matrix(std::vector<MatrixOp> instances, MatrixFile& file,
                               std::vector<std::string>* unknown_types) {
  // An instance written twice: the last value at the first one's place (a Python dict).
  std::map<std::string, size_t> first;
  std::vector<bool> dropped(instances.size(), false);
  for (size_t i = 0; i < instances.size(); ++i) {
    auto [it, fresh] = first.try_emplace(instances[i].key, i);
    if (fresh) continue;
    instances[it->second].links = std::move(instances[i].links);
    dropped[i] = true;
  }
  std::vector<MatrixOp> p2p, collective;
  for (size_t i = 0; i < instances.size(); ++i) {
    if (dropped[i]) continue;
    MatrixOp& op = instances[i];
    keep_last_link(op);
    if (is_p2p_op_name(op.key))
      p2p.push_back(std::move(op));
    else if (!io::msprof_flat_is_total(op.key))
      collective.push_back(std::move(op));
  }
  MatrixStep step;
  step.step = "step";
  step.p2p_first = true;  // the adapter's dict: {"p2p": ..., "collective": ...}
  std::vector<LinkRecords> groups = by_type(p2p, file, unknown_types);
  integrate(groups, step.p2p);
  groups = by_type(collective, file, unknown_types);
  integrate(groups, step.collective);
  return step;
}

}  // namespace cs::readers
