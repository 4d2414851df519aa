#include "readers/communication.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/json/json_input.h"
#include "io/json/leading_keys.h"
#include "readers/step_document.h"

namespace cs::readers {

const std::array<std::string_view, kTimeFieldCount> kTimeFieldNames = {
    "Start Timestamp(us)", "Elapse Time(ms)",           "Transit Time(ms)",
    "Wait Time(ms)",       "Synchronization Time(ms)",  "Idle Time(ms)",
    "Wait Time Ratio",     "Synchronization Time Ratio"};

std::string_view CommOp::group() const {
  size_t at = name.rfind('@');
  return at == std::string::npos ? std::string_view() : std::string_view(name).substr(at + 1);
}

std::string_view CommOp::op_name() const {
  size_t at = name.rfind('@');
  return at == std::string::npos ? std::string_view(name) : std::string_view(name).substr(0, at);
}

bool is_p2p_op_name(std::string_view op_name) {
  auto starts_ci = [&](std::string_view prefix) {
    if (op_name.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(op_name[i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts_ci("hcom_send") || starts_ci("hcom_receive") || starts_ci("hcom_batchsendrecv");
}

namespace {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

constexpr std::string_view kTimeInfoKey = "Communication Time Info";
constexpr std::string_view kBandwidthInfoKey = "Communication Bandwidth Info";
constexpr std::string_view kSizeDistributionKey = "Size Distribution";

// TransportField's keys, then the size distribution's.
constexpr int kTrSizeDist = kTransportFieldCount;
constexpr std::array<std::string_view, kTransportFieldCount + 1> kTransportKeys = {
    "Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Large Packet Ratio",
    kSizeDistributionKey};

// Walks one communication.json document into a CommunicationFile.
// Entries written under the same key: the last one's value at the first one's place, as a Python
// dict (json.load, so msprof-analyze) keeps them. Returns the name of the first repeated entry
// ("" when none) and counts the dropped ones in `dropped`. `seen` is scratch, reused.
template <class T>
std::string keep_last_of_repeated(std::vector<T>& v, std::string T::*name,
                                  std::unordered_map<std::string_view, size_t>& seen,
                                  size_t& dropped) {
  seen.clear();
  std::vector<size_t> winner;  // index -> the last entry with its name (only when repeats)
  for (size_t i = 0; i < v.size(); ++i) {
    auto [it, fresh] = seen.try_emplace(v[i].*name, i);
    if (fresh) continue;
    if (winner.empty()) {
      winner.resize(v.size());
      for (size_t k = 0; k < v.size(); ++k) winner[k] = k;
    }
    winner[it->second] = i;
    winner[i] = SIZE_MAX;  // dropped
  }
  seen.clear();  // its keys point into v, about to change
  if (winner.empty()) return {};
  std::string first;
  for (size_t i = 0; i < v.size(); ++i) {
    if (winner[i] == SIZE_MAX || winner[i] == i) continue;
    if (first.empty()) first = v[i].*name;
    v[i] = std::move(v[winner[i]]);
  }
  size_t w = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (winner[i] == SIZE_MAX) continue;
    if (w != i) v[w] = std::move(v[i]);
    ++w;
  }
  dropped += v.size() - w;
  v.resize(w);
  return first;
}

class CommWalker {
 public:
  // `flat`: CANN msprof's flat layout (is_flat_communication).
  CommWalker(io::JsonContext& ctx, CommunicationFile& out, bool flat)
      : ctx_(ctx), out_(out), flat_(flat) {}

  error_code root(od::document& doc) {
    od::object steps;
    error_code e = doc.get_object().get(steps);
    if (e) {
      if (e == simdjson::INCORRECT_TYPE) {
        ctx_.reported = true;
        ctx_.error_at_offset(0, "the top level is not a JSON object",
                             "communication.json holds {\"step\": {\"collective\": {...}}}; "
                             "check that this is the right file");
      }
      return e;
    }
    if ((e = flat_ ? flat_ops(steps) : step_list(steps))) return e;
    const std::string first = keep_last_of_repeated(out_.steps, &CommStep::step, seen_, repeated_);
    if (!first.empty() && repeated_first_.empty()) repeated_first_ = "step '" + first + "'";
    if (repeated_ > 0)
      ctx_.warn_at(nullptr,
                   std::to_string(repeated_) +
                       " key(s) written more than once (first: " + repeated_first_ + ")",
                   "the last value of each was used, as Python's json module (and msprof-analyze) "
                   "does");
    return SUCCESS;
  }

 private:
  error_code step_list(od::object& steps) {
    error_code e;
    for (auto fr : steps) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      CommStep& st = out_.steps.emplace_back();
      st.step.assign(key);
      od::value v = f.value();
      if ((e = step(v, st))) return e;
      if (skip_step_) {
        out_.steps.pop_back();
        skip_step_ = false;
      }
    }
    return SUCCESS;
  }

  // The flat layout adapted as msprof-analyze's MsprofCommunicationTimeAdapter does: one step
  // "step"; ops whose name starts with hcom_send / hcom_receive / hcom_batchsendrecv (any case)
  // are p2p, keys starting with "total" (any case) are left out, the rest are collective.
  // A damaged file keeps the ops read before the damage.
  error_code flat_ops(od::object& obj) {
    std::vector<CommOp> ops;
    size_t hint = 0;
    const error_code e = op_list(obj, ops, hint);
    CommStep& st = out_.steps.emplace_back();
    st.step = "step";
    st.p2p_first = true;  // the adapter's dict: {"p2p": ..., "collective": ...}
    for (CommOp& op : ops) {
      if (is_p2p_op_name(op.name))
        st.p2p.push_back(std::move(op));
      else if (!io::msprof_flat_is_total(op.name))
        st.collective.push_back(std::move(op));
    }
    return e;
  }

  error_code step(od::value& v, CommStep& st) {
    step_ = &st;
    od::object obj;
    error_code e = io::get_object_or_warn(
        v, obj, ctx_, [&] { return "step '" + st.step + "'"; }, "");
    if (e == simdjson::INCORRECT_TYPE) {
      skip_step_ = true;
      return SUCCESS;
    }
    if (e) return e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k = io::raw_key(f);
      std::vector<CommOp>* ops = nullptr;
      if (k == "collective") {
        ops = &st.collective;
      } else if (k == "p2p") {
        ops = &st.p2p;
        st.p2p_first = st.p2p_first || st.collective.empty();
      } else {
        continue;  // unknown keys are ignored
      }
      od::value ov = f.value();
      od::object ops_obj;
      e = io::get_object_or_warn(
          ov, ops_obj, ctx_, [&] { return "step '" + st.step + "'"; }, k);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      if ((e = op_list(ops_obj, *ops, ops == &st.p2p ? p2p_hint_ : collective_hint_))) return e;
    }
    return SUCCESS;
  }

  // `hint`: the most ops seen in this section of a step so far (updated).
  error_code op_list(od::object& obj, std::vector<CommOp>& ops, size_t& hint) {
    error_code e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      // Producers write about as many ops in every step: reserving the largest count seen avoids
      // the vector's regrowth (and the page faults of its copies).
      if (ops.empty() && hint > 0) ops.reserve(hint);
      CommOp& op = ops.emplace_back();
      op.name.assign(key);
      od::value v = f.value();
      op_ = &op;
      e = one_op(v, op);
      if (e) {
        ctx_.where = where();
        ops.pop_back();  // a damaged op is not kept half-read
        op_ = nullptr;
        return e;
      }
      if (skip_op_) {
        ops.pop_back();
        skip_op_ = false;
      } else {
        ctx_.got_data = true;
      }
      op_ = nullptr;
    }
    const std::string first = keep_last_of_repeated(ops, &CommOp::name, seen_, repeated_);
    if (!first.empty() && repeated_first_.empty())
      repeated_first_ = "op '" + first + "'" + (step_ ? " of step '" + step_->step + "'" : "");
    if (ops.size() > hint) hint = ops.size();
    // The first step grows its list by doubling; every rank's data is held until the end of the
    // run, so give the unused half back (later steps reserve the right size from `hint`).
    if (ops.capacity() > ops.size() + ops.size() / 8) ops.shrink_to_fit();
    return SUCCESS;
  }

  std::string where() const {
    std::string s;
    if (op_) s = "op '" + op_->name + "'";
    if (step_) s += (s.empty() ? "step '" : " of step '") + step_->step + "'";
    return s;
  }

  error_code one_op(od::value& v, CommOp& op) {
    od::object obj;
    error_code e = io::get_object_or_warn(
        v, obj, ctx_, [&] { return where(); }, "");
    if (e == simdjson::INCORRECT_TYPE) {
      skip_op_ = true;
      return SUCCESS;
    }
    if (e) return e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k = io::raw_key(f);
      od::value fv = f.value();
      if (k == kTimeInfoKey) {
        od::object t;
        e = io::get_object_or_warn(
            fv, t, ctx_, [&] { return where(); }, k);
        if (e == simdjson::INCORRECT_TYPE) continue;
        if (e) return e;
        op.has_time_info = true;
        if ((e = time_info(t, op.time))) return e;
      } else if (k == kBandwidthInfoKey) {
        od::object b;
        e = io::get_object_or_warn(
            fv, b, ctx_, [&] { return where(); }, k);
        if (e == simdjson::INCORRECT_TYPE) continue;
        if (e) return e;
        op.has_bandwidth_info = true;
        if ((e = bandwidth_info(b, op))) return e;
      }
    }
    return SUCCESS;
  }

  error_code time_info(od::object& obj, CommTimeInfo& t) {
    error_code e;
    int expected = 0;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k;
      int idx = io::match_key(f, kTimeFieldNames, expected, k);
      if (idx < 0) continue;
      expected = idx + 1;
      od::value v = f.value();
      io::Num n;
      if (io::read_num_or_warn(
              v, n, ctx_, [&] { return where(); }, k)) {
        t.set(static_cast<TimeField>(idx), n);
      }
    }
    return SUCCESS;
  }

  error_code bandwidth_info(od::object& obj, CommOp& op) {
    error_code e;
    op.transports.reserve(5);  // RDMA, HCCS, PCIE, SDMA, SIO: what producers write
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view name;
      if ((e = io::key_text(f, name))) return e;
      od::value v = f.value();
      od::object tobj;
      e = io::get_object_or_warn(
          v, tobj, ctx_, [&] { return where(); }, name);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      TransportName tn;
      if (!TransportName::make(name, tn)) {
        ctx_.warn_at(v.raw_json_token().data(),
                     where() + ": a transport name beyond the first " +
                         std::to_string(kMaxTransportNames) + " distinct ones",
                     "the transport was skipped; the file likely writes data as transport names");
        continue;
      }
      TransportInfo& tr = op.transports.emplace_back();
      tr.name = tn;
      if ((e = transport(tobj, tr, op))) return e;
    }
    return SUCCESS;
  }

  error_code transport(od::object& obj, TransportInfo& tr, CommOp& op) {
    error_code e;
    int expected = 0;
    auto where_tr = [&] { return where() + ", transport " + std::string(tr.name.view()); };
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k;
      int idx = io::match_key(f, kTransportKeys, expected, k);
      if (idx < 0) continue;
      expected = idx + 1;
      od::value v = f.value();
      if (idx == kTrSizeDist) {
        od::object d;
        e = io::get_object_or_warn(v, d, ctx_, where_tr, k);
        if (e == simdjson::INCORRECT_TYPE) continue;
        if (e) return e;
        tr.has_size_distribution = true;
        if ((e = size_distribution(d, tr, op))) return e;
        continue;
      }
      io::Num n;
      if (io::read_num_or_warn(v, n, ctx_, where_tr, k)) tr.set(idx, n);  // idx is a TransportField
    }
    return SUCCESS;
  }

  error_code size_distribution(od::object& obj, const TransportInfo& tr, CommOp& op) {
    error_code e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      od::value v = f.value();
      auto where_sd = [&] {
        return where() + ", transport " + std::string(tr.name.view()) + ", Size Distribution";
      };
      od::array arr;
      e = io::get_array_or_warn(v, arr, ctx_, where_sd, key);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      SizeBucket b;
      int i = 0;
      bool ok = true;
      const char* at = v.raw_json_token().data();
      for (auto er : arr) {
        od::value ev;
        if ((e = std::move(er).get(ev))) return e;
        if (i < 2) {
          io::Num n;
          if (io::read_num_or_warn(ev, n, ctx_, where_sd, key)) {
            (i == 0 ? b.count : b.duration_ms) = n;
          } else {
            ok = false;
          }
        }
        ++i;
      }
      if (i != 2) {
        ctx_.warn_at(at,
                     where_sd() + ": \"" + std::string(key) + "\" has " + std::to_string(i) +
                         " values, expected [count, duration]",
                     i < 2 ? "the entry was skipped" : "the extra values were ignored");
        if (i < 2) ok = false;
      }
      if (!ok) continue;
      b.size_key.assign(key);
      if (!op.add_bucket(std::move(b))) {
        ctx_.warn_at(
            at,
            where_sd() + ": more than " + std::to_string(TransportInfo::kMaxBuckets) + " entries",
            "the entries after that were skipped");
        break;
      }
    }
    return SUCCESS;
  }

  io::JsonContext& ctx_;
  CommunicationFile& out_;
  const bool flat_;
  const CommStep* step_ = nullptr;
  const CommOp* op_ = nullptr;
  bool skip_op_ = false;
  bool skip_step_ = false;
  size_t collective_hint_ = 0, p2p_hint_ = 0;          // most ops seen in one step's section
  std::unordered_map<std::string_view, size_t> seen_;  // keep_last_of_repeated's scratch
  size_t repeated_ = 0;                                // keys written more than once
  std::string repeated_first_;                         // the first, for the warning
};

// CANN msprof's flat layout (docs/formats.md §1b): the first entry is an op (its first key is
// "Communication Time Info" or "Communication Bandwidth Info"), not a step.
bool is_flat_communication(std::string_view text) {
  const auto keys = io::leading_keys(text, 2);
  return keys.size() == 2 && (keys[1] == kTimeInfoKey || keys[1] == kBandwidthInfoKey);
}

bool parse_communication_padded(simdjson::padded_string_view text, const std::string& source,
                                CommunicationFile& out, io::Diagnostics& diag) {
  return walk_steps<CommWalker>(text, source, is_flat_communication(text), out, diag);
}

}  // namespace

bool read_communication_json(const std::string& path, CommunicationFile& out,
                             io::Diagnostics& diag) {
  return read_steps_file(path, out, diag, parse_communication_padded);
}

bool parse_communication_json(std::string_view json, const std::string& source,
                              CommunicationFile& out, io::Diagnostics& diag) {
  return parse_steps_text(json, source, out, diag, parse_communication_padded);
}

}  // namespace cs::readers
