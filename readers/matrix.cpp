#include "readers/matrix.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "io/json/json_input.h"
#include "io/json/leading_keys.h"
#include "readers/msprof_matrix_adapter.h"
#include "readers/step_document.h"

namespace cs::readers {

std::string_view MatrixOp::group() const {
  size_t at = key.rfind('@');
  return at == std::string::npos ? std::string_view() : std::string_view(key).substr(at + 1);
}

std::string_view MatrixOp::op_part() const {
  size_t at = key.rfind('@');
  return at == std::string::npos ? std::string_view(key) : std::string_view(key).substr(0, at);
}

std::string matrix_op_type(std::string_view op_name) {
  // The producer's regex alternation: the leftmost position wins, and at one position the first
  // alternative that matches (so "allreduce" at a position where "reduce" cannot start).
  static constexpr std::array<std::string_view, 13> kTypes = {
      "send",      "reduce",     "invalid",       "broadcast", "allreduce",
      "receive",   "allgather",  "reducescatter", "scatter",   "alltoall",
      "alltoallv", "alltoallvc", "batchsendrecv"};
  std::string lower(op_name);
  // ASCII lower case: what std::tolower does in the C locale, without a call per character.
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  std::string_view s(lower);
  for (size_t pos = 0; pos < s.size(); ++pos) {
    for (std::string_view t : kTypes) {
      if (s.compare(pos, t.size(), t) == 0) return std::string(t);
    }
  }
  return {};
}

namespace {

using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

enum LinkField {
  kLfTransport = 0,
  kLfSize,
  kLfTime,
  kLfBandwidth,
  kLfUtilization,
  kLfLargePacket,
  kLfOpName,
  kLfCount
};
constexpr std::array<std::string_view, kLfCount> kLinkKeys = {
    "Transport Type",         "Transit Size(MB)",   "Transit Time(ms)", "Bandwidth(GB/s)",
    "Bandwidth(Utilization)", "Large Packet Ratio", "Op Name"};

// "3-12" -> (3, 12); false for anything else.
bool parse_link(std::string_view s, int& src, int& dst) {
  size_t dash = s.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= s.size()) return false;
  const char* b = s.data();
  auto r1 = std::from_chars(b, b + dash, src);
  if (r1.ec != std::errc() || r1.ptr != b + dash) return false;
  auto r2 = std::from_chars(b + dash + 1, b + s.size(), dst);
  return r2.ec == std::errc() && r2.ptr == b + s.size() && src >= 0 && dst >= 0;
}

class MatrixWalker {
 public:
  // `flat`: CANN msprof's flat layout (is_flat_matrix).
  MatrixWalker(io::JsonContext& ctx, MatrixFile& out, bool flat)
      : ctx_(ctx), out_(out), flat_(flat) {}

  error_code root(od::document& doc) {
    od::object steps;
    error_code e = doc.get_object().get(steps);
    if (e) {
      if (e == simdjson::INCORRECT_TYPE) {
        ctx_.reported = true;
        ctx_.error_at_offset(0, "the top level is not a JSON object",
                             "communication_matrix.json holds {\"step\": {\"collective\": "
                             "{...}}}; check that this is the right file");
      }
      return e;
    }
    return flat_ ? flat_ops(steps) : step_list(steps);
  }

 private:
  // The flat layout's instances adapted as msprof-analyze does (readers/msprof_matrix_adapter.h);
  // a damaged file keeps the instances read before the damage.
  error_code flat_ops(od::object& obj) {
    std::vector<MatrixOp> instances;
    size_t hint = 0;
    const error_code e = op_list(obj, instances, hint);
    std::vector<std::string> unknown;
    out_.steps.push_back(adapt_msprof_matrix(std::move(instances), out_, &unknown));
    if (!unknown.empty())
      ctx_.warn_at(nullptr,
                   std::to_string(unknown.size()) +
                       " op type(s) match no known communication type (first: '" + unknown[0] +
                       "'); named by the op name before its first \"__\", as msprof-analyze does",
                   "check the op names; their matrix rows are keyed by that name");
    return e;
  }

  error_code step_list(od::object& steps) {
    error_code e;
    for (auto fr : steps) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      MatrixStep& st = out_.steps.emplace_back();
      st.step.assign(key);
      step_ = &st;
      od::value v = f.value();
      od::object obj;
      e = io::get_object_or_warn(
          v, obj, ctx_, [&] { return "step '" + st.step + "'"; }, "");
      if (e == simdjson::INCORRECT_TYPE) {
        out_.steps.pop_back();
        step_ = nullptr;
        continue;
      }
      if (e) return e;
      if ((e = step(obj, st))) return e;
    }
    return SUCCESS;
  }

  std::string where() const {
    std::string s;
    if (op_) s = "op '" + op_->key + "'";
    if (step_) s += (s.empty() ? "step '" : " of step '") + step_->step + "'";
    return s;
  }

  error_code step(od::object& obj, MatrixStep& st) {
    error_code e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k = io::raw_key(f);
      std::vector<MatrixOp>* ops = nullptr;
      if (k == "collective") {
        ops = &st.collective;
      } else if (k == "p2p") {
        ops = &st.p2p;
        st.p2p_first = st.p2p_first || st.collective.empty();
      } else {
        continue;
      }
      od::value v = f.value();
      od::object ops_obj;
      e = io::get_object_or_warn(
          v, ops_obj, ctx_, [&] { return where(); }, k);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      if ((e = op_list(ops_obj, *ops, ops == &st.p2p ? p2p_hint_ : collective_hint_))) return e;
    }
    return SUCCESS;
  }

  // `hint`: the most ops seen in this section of a step so far (updated).
  error_code op_list(od::object& obj, std::vector<MatrixOp>& ops, size_t& hint) {
    error_code e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      // Producers write the same number of ops per step and links per op: reserving the last
      // size avoids the vectors' regrowth (and the page faults of their copies).
      if (ops.empty() && hint > 0) ops.reserve(hint);
      MatrixOp& op = ops.emplace_back();
      op.key.assign(key);
      if (links_hint_ > 0) op.links.reserve(links_hint_);
      op_ = &op;
      od::value v = f.value();
      od::object links;
      e = io::get_object_or_warn(
          v, links, ctx_, [&] { return where(); }, "");
      if (e == simdjson::INCORRECT_TYPE) {
        ops.pop_back();
        op_ = nullptr;
        continue;
      }
      if (!e) e = link_list(links, op);
      if (e) {
        ctx_.where = where();
        ops.pop_back();
        op_ = nullptr;
        return e;
      }
      ctx_.got_data = true;
      links_hint_ = op.links.size();
      op_ = nullptr;
    }
    if (ops.size() > hint) hint = ops.size();
    // The first step grows its list by doubling; every rank's data is held until the end of the
    // run, so give the unused half back (later steps reserve the right size from `hint`).
    if (ops.capacity() > ops.size() + ops.size() / 8) ops.shrink_to_fit();
    return SUCCESS;
  }

  error_code link_list(od::object& obj, MatrixOp& op) {
    error_code e;
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view key;
      if ((e = io::key_text(f, key))) return e;
      od::value v = f.value();
      od::object lobj;
      e = io::get_object_or_warn(
          v, lobj, ctx_, [&] { return where(); }, key);
      if (e == simdjson::INCORRECT_TYPE) continue;
      if (e) return e;
      MatrixLink& l = op.links.emplace_back();
      l.link_id = out_.keep(key);
      if (!parse_link(key, l.src_local, l.dst_local)) {
        l.src_local = l.dst_local = -1;
        ctx_.warn_at(v.raw_json_token().data(),
                     where() + ": link \"" + std::string(key) + "\" is not \"<src>-<dst>\"",
                     "its ranks are unknown; it is kept but not placed in the matrix");
      }
      if ((e = link(lobj, l))) return e;
    }
    return SUCCESS;
  }

  error_code link(od::object& obj, MatrixLink& l) {
    error_code e;
    int expected = 0;
    auto where_l = [&] { return where() + ", link " + std::string(out_.link_key(l)); };
    for (auto fr : obj) {
      od::field f;
      if ((e = std::move(fr).get(f))) return e;
      std::string_view k;
      int idx = io::match_key(f, kLinkKeys, expected, k);
      if (idx < 0) continue;
      expected = idx + 1;
      od::value v = f.value();
      if (idx == kLfTransport || idx == kLfOpName) {
        std::string_view s;
        e = v.get_string().get(s);
        if (e == simdjson::INCORRECT_TYPE) {
          ctx_.warn_at(v.raw_json_token().data(),
                       where_l() + ": \"" + std::string(k) + "\" is " + io::describe_token(v) +
                           ", expected a string",
                       "the value was treated as missing");
          continue;
        }
        if (e) return e;
        if (idx == kLfTransport) {
          if (!TransportName::make(s, l.transport)) {
            ctx_.warn_at(v.raw_json_token().data(),
                         where_l() + ": a transport name beyond the first " +
                             std::to_string(kMaxTransportNames) + " distinct ones",
                         "the transport was treated as missing");
          }
        } else {
          l.op_name_id = out_.keep(s);
          l.has_op_name = true;
        }
        continue;
      }
      io::Num n;
      if (io::read_num_or_warn(v, n, ctx_, where_l, k)) l.set(idx - kLfSize, n);  // a LinkNumField
    }
    return SUCCESS;
  }

  io::JsonContext& ctx_;
  MatrixFile& out_;
  const bool flat_;
  const MatrixStep* step_ = nullptr;
  const MatrixOp* op_ = nullptr;
  size_t collective_hint_ = 0, p2p_hint_ = 0;  // most ops seen in one step's section
  size_t links_hint_ = 0;                      // links of the last op
};

// CANN msprof's flat layout (docs/formats.md §1b): the first entry maps a link to an object of
// link fields ("Transport Type", ...), where the stepped layout has "collective"/"p2p" and op keys.
bool is_flat_matrix(std::string_view text) {
  const auto keys = io::leading_keys(text, 3);
  return keys.size() == 3 &&
         std::find(kLinkKeys.begin(), kLinkKeys.end(), keys[2]) != kLinkKeys.end();
}

bool parse_matrix_padded(simdjson::padded_string_view text, const std::string& source,
                         MatrixFile& out, io::Diagnostics& diag) {
  return walk_steps<MatrixWalker>(text, source, is_flat_matrix(text), out, diag);
}

}  // namespace

bool read_communication_matrix_json(const std::string& path, MatrixFile& out,
                                    io::Diagnostics& diag) {
  return read_steps_file(path, out, diag, parse_matrix_padded);
}

bool parse_communication_matrix_json(std::string_view json, const std::string& source,
                                     MatrixFile& out, io::Diagnostics& diag) {
  return parse_steps_text(json, source, out, diag, parse_matrix_padded);
}

}  // namespace cs::readers
