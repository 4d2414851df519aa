#pragma once
// A transport's name ("HCCS", "RDMA", "PCIE", "SDMA", "SIO", "LOCAL", or any other name a
// producer writes) held in two bytes: an id into one process-wide table of the names seen. The
// per-rank records hold hundreds of thousands of these, and a job uses a handful of names.
//
//   TransportName t("HCCS");
//   t == "HCCS";  t.view() == "HCCS";  std::string(t.view()) + "!" == "HCCS!"
//   TransportName().empty()
//
// The table keeps every name for the life of the process (views stay valid) and holds at most
// kMaxTransportNames; TransportName::make reports when it is full.

#include <cstdint>
#include <string_view>

namespace cs::readers {

constexpr uint32_t kMaxTransportNames = 4096;

class TransportName {
 public:
  TransportName() = default;
  // The name `s`; the empty name when the table is full (use make() to tell).
  explicit TransportName(std::string_view s) { make(s, *this); }

  // Sets `out` to the name `s`. False (and `out` empty) when the table is full.
  static bool make(std::string_view s, TransportName& out);

  // The names every process knows under the same id (1..kBuiltinTransportNames-1): "RDMA",
  // "HCCS", "PCIE", "SDMA", "SIO", "LOCAL". A builtin id can travel between processes as is.
  static constexpr uint16_t kBuiltinTransportNames = 7;
  bool is_builtin() const { return id_ < kBuiltinTransportNames; }
  // The name with builtin id `id` (the empty name for an id out of that range).
  static TransportName builtin(uint16_t id) {
    TransportName t;
    t.id_ = id < kBuiltinTransportNames ? id : 0;
    return t;
  }

  std::string_view view() const;
  operator std::string_view() const { return view(); }  // NOLINT: reads like the string it is
  bool empty() const { return id_ == 0; }
  uint16_t id() const { return id_; }

  friend bool operator==(TransportName a, TransportName b) { return a.id_ == b.id_; }
  friend bool operator==(TransportName a, std::string_view b) { return a.view() == b; }
  friend bool operator==(TransportName a, const char* b) { return a.view() == b; }

 private:
  uint16_t id_ = 0;  // 0: the empty name
};

}  // namespace cs::readers
