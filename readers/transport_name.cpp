#include "readers/transport_name.h"

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cs::readers {

namespace {

// The names producers write, with fixed ids 1..6: found without a lock.
constexpr std::array<std::string_view, TransportName::kBuiltinTransportNames> kBuiltin = {
    "", "RDMA", "HCCS", "PCIE", "SDMA", "SIO", "LOCAL"};

// Other names: id -> name, written once under the lock before the id is handed out, then only
// read. The strings are never freed (views handed out stay valid for the life of the process).
std::array<std::atomic<const std::string*>, kMaxTransportNames> g_names{};

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, uint16_t> ids;
  uint32_t next = kBuiltin.size();
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool TransportName::make(std::string_view s, TransportName& out) {
  for (size_t i = 0; i < kBuiltin.size(); ++i) {
    if (kBuiltin[i] == s) {
      out.id_ = static_cast<uint16_t>(i);
      return true;
    }
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ids.find(std::string(s));
  if (it != r.ids.end()) {
    out.id_ = it->second;
    return true;
  }
  if (r.next >= kMaxTransportNames) {
    out.id_ = 0;
    return false;
  }
  const auto id = static_cast<uint16_t>(r.next++);
  g_names[id].store(new std::string(s), std::memory_order_release);
  r.ids.emplace(std::string(s), id);
  out.id_ = id;
  return true;
}

std::string_view TransportName::view() const {
  if (id_ < kBuiltin.size()) return kBuiltin[id_];
  const std::string* s = g_names[id_].load(std::memory_order_acquire);
  return s ? std::string_view(*s) : std::string_view();
}

}  // namespace cs::readers
