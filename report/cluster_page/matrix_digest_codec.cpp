// The matrix digest packed for the root's spill file (matrix_digest.h).
#include <cstdint>
#include <stdexcept>

#include "report/cluster_page/cluster_report.h"
#include "report/cluster_page/matrix_digest.h"

namespace cs::report {

namespace {

constexpr uint32_t kDigestMagic = 0x4d444731;  // "MDG1"

void put_link(io::ByteWriter& w, const DigestLink& l) {
  w.put<double>(l.size_mb);
  w.put<double>(l.time_ms);
  w.put<double>(l.bw_sum);
  w.put<uint64_t>(l.bw_n);
}

DigestLink get_link(io::ByteReader& r) {
  DigestLink l;
  l.size_mb = r.get<double>();
  l.time_ms = r.get<double>();
  l.bw_sum = r.get<double>();
  l.bw_n = static_cast<size_t>(r.get<uint64_t>());
  return l;
}

// A count read back, checked against the bytes left (each item takes at least `min_bytes`), so
// damaged bytes cannot ask for a huge allocation.
size_t get_count(io::ByteReader& r, size_t min_bytes) {
  const auto n = r.get<uint64_t>();
  if (n > r.remaining() / min_bytes)
    throw std::runtime_error("matrix digest: a count runs past the end of its bytes");
  return static_cast<size_t>(n);
}

}  // namespace

void pack_matrix_digest(const MatrixDigest& d, io::ByteWriter& w) {
  w.put<uint32_t>(kDigestMagic);
  w.put<uint64_t>(d.groups.size());
  for (const DigestGroup& g : d.groups) {
    w.str(g.name);
    w.put<uint64_t>(g.links.size());
    for (const auto& [key, l] : g.links) {
      w.put<int64_t>(key.first);
      w.put<int64_t>(key.second);
      put_link(w, l);
    }
    w.put<uint64_t>(g.link_count);
    w.put<uint64_t>(g.transports.size());
    for (const std::string& t : g.transports) w.str(t);
    w.put<uint64_t>(g.ranks.size());
    for (long long rank : g.ranks) w.put<int64_t>(rank);
    w.str(g.ops_used);
    w.put<uint64_t>(g.slow);
    w.put<double>(g.bw_min);
    w.put<double>(g.bw_median);
    w.put<double>(g.bw_max);
  }
}

std::shared_ptr<const MatrixDigest> unpack_matrix_digest(io::ByteReader& r) {
  if (r.get<uint32_t>() != kDigestMagic)
    throw std::runtime_error("matrix digest: not a packed digest");
  auto d = std::make_shared<MatrixDigest>();
  d->groups.resize(get_count(r, 8));
  for (DigestGroup& g : d->groups) {
    g.name = r.str();
    for (size_t n = get_count(r, 48); n > 0; --n) {
      const long long src = r.get<int64_t>();
      const long long dst = r.get<int64_t>();
      g.links.emplace_hint(g.links.end(), std::make_pair(src, dst), get_link(r));
    }
    g.link_count = static_cast<size_t>(r.get<uint64_t>());
    for (size_t n = get_count(r, 4); n > 0; --n) g.transports.insert(g.transports.end(), r.str());
    g.ranks.resize(get_count(r, 8));
    for (long long& rank : g.ranks) rank = r.get<int64_t>();
    g.ops_used = r.str();
    g.slow = static_cast<size_t>(r.get<uint64_t>());
    g.bw_min = r.get<double>();
    g.bw_median = r.get<double>();
    g.bw_max = r.get<double>();
  }
  if (!r.done()) throw std::runtime_error("matrix digest: bytes left after its last group");
  return d;
}

}  // namespace cs::report
