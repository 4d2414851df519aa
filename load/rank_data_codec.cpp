#include "load/rank_data_codec.h"

#include <cstring>

#include <stdexcept>
#include <string_view>

#include "io/string_pool.h"

namespace cs::load {

namespace {

using io::ByteReader;
using io::ByteWriter;
using io::Num;

void put_num(ByteWriter& w, Num n) {
  w.put(n.v);
  w.put<uint8_t>(n.is_int);
}
Num get_num(ByteReader& r) {
  Num n;
  n.v = r.get<double>();
  n.is_int = r.get<uint8_t>() != 0;
  return n;
}

void put_strings(ByteWriter& w, const std::vector<std::string>& v) {
  w.put<uint32_t>(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}
std::vector<std::string> get_strings(ByteReader& r) {
  std::vector<std::string> v(r.get<uint32_t>());
  for (auto& s : v) s = r.str();
  return v;
}

template <int N>
void put_fields(ByteWriter& w, const io::NumFields<N>& f) {
  w.bytes(f.v.data(), sizeof(double) * N);
  w.put(f.is_int);
  w.put(f.present);
}
template <int N>
void get_fields(ByteReader& r, io::NumFields<N>& f) {
  r.bytes(f.v.data(), sizeof(double) * N);
  f.is_int = r.get<uint8_t>();
  f.present = r.get<uint8_t>();
}

// A builtin name travels as its id (one byte); any other as text, since each process has its own
// table of the other names.
constexpr uint8_t kNamedTransport = 0xff;
void put_transport_name(ByteWriter& w, readers::TransportName t) {
  if (t.is_builtin()) {
    w.put<uint8_t>(static_cast<uint8_t>(t.id()));
    return;
  }
  w.put<uint8_t>(kNamedTransport);
  w.str(t.view());
}
readers::TransportName get_transport_name(ByteReader& r) {
  const auto code = r.get<uint8_t>();
  if (code != kNamedTransport) return readers::TransportName::builtin(code);
  readers::TransportName t;
  readers::TransportName::make(r.view(), t);  // a full table leaves it empty, as the reader would
  return t;
}

void put_ops(ByteWriter& w, const std::vector<readers::CommOp>& ops) {
  w.put<uint32_t>(static_cast<uint32_t>(ops.size()));
  for (const auto& op : ops) {
    w.str(op.name);
    w.put<uint8_t>((op.has_time_info ? 1 : 0) | (op.has_bandwidth_info ? 2 : 0));
    put_fields(w, op.time);
    w.put<uint32_t>(static_cast<uint32_t>(op.transports.size()));
    for (const auto& t : op.transports) {
      put_transport_name(w, t.name);
      put_fields(w, t);
      w.put<uint8_t>(t.has_size_distribution);
      w.put(t.bucket_count);
    }
    w.put<uint32_t>(static_cast<uint32_t>(op.buckets.size()));
    for (const auto& b : op.buckets) {
      w.str(b.size_key);
      put_num(w, b.count);
      put_num(w, b.duration_ms);
    }
  }
}
// Overwrites `ops` with the packed list: every field of every op is assigned, so a vector (and
// its ops' strings and vectors) left from an earlier unpack is reused without allocating again.
void get_ops(ByteReader& r, std::vector<readers::CommOp>& ops) {
  ops.resize(r.get<uint32_t>());
  for (auto& op : ops) {
    op.name.assign(r.view());
    auto flags = r.get<uint8_t>();
    op.has_time_info = flags & 1;
    op.has_bandwidth_info = flags & 2;
    get_fields(r, op.time);
    op.transports.resize(r.get<uint32_t>());
    size_t buckets = 0;  // the transports' counts must add up to the op's buckets
    for (auto& t : op.transports) {
      t.name = get_transport_name(r);
      get_fields(r, t);
      t.has_size_distribution = r.get<uint8_t>() != 0;
      t.bucket_count = r.get<uint16_t>();
      buckets += t.bucket_count;
    }
    const uint32_t bucket_total = r.get<uint32_t>();
    if (buckets != bucket_total)
      throw std::runtime_error("packed rank data: size buckets do not add up");
    op.buckets.resize(bucket_total);
    for (auto& b : op.buckets) {
      b.size_key.assign(r.view());
      b.count = get_num(r);
      b.duration_ms = get_num(r);
    }
  }
}

// A rank's link keys and op names repeat (~8 keys and ~150 op names for 650 links): its file's
// text table is sent once, before the steps, and links send their 4-byte ids into it.
void put_matrix_ops(ByteWriter& w, const std::vector<readers::MatrixOp>& ops) {
  w.put<uint32_t>(static_cast<uint32_t>(ops.size()));
  for (const auto& op : ops) {
    w.str(op.key);
    w.put<uint32_t>(static_cast<uint32_t>(op.links.size()));
    for (const auto& l : op.links) {
      w.put<uint32_t>(l.link_id);
      w.put<int32_t>(l.src_local);
      w.put<int32_t>(l.dst_local);
      put_transport_name(w, l.transport);
      put_fields(w, l);
      w.put<uint8_t>(l.has_op_name);
      w.put<uint32_t>(l.op_name_id);
    }
  }
}
std::vector<readers::MatrixOp> get_matrix_ops(ByteReader& r, uint32_t texts) {
  auto text = [&](uint32_t id) {
    if (id >= texts && id != io::kNoString)
      throw std::runtime_error("packed rank data: text id out of range");
    return id;
  };
  std::vector<readers::MatrixOp> ops(r.get<uint32_t>());
  for (auto& op : ops) {
    op.key = r.str();
    op.links.resize(r.get<uint32_t>());
    for (auto& l : op.links) {
      l.link_id = text(r.get<uint32_t>());
      l.src_local = r.get<int32_t>();
      l.dst_local = r.get<int32_t>();
      l.transport = get_transport_name(r);
      get_fields(r, l);
      l.has_op_name = r.get<uint8_t>() != 0;
      l.op_name_id = text(r.get<uint32_t>());
    }
  }
  return ops;
}

void put_diagnostics(ByteWriter& w, const io::Diagnostics& d) {
  w.put<uint32_t>(static_cast<uint32_t>(d.items().size()));
  for (const auto& x : d.items()) {
    w.put<uint8_t>(x.severity == io::Severity::kError ? 1 : 0);
    w.str(x.file);
    w.put(x.line);
    w.put(x.offset);
    w.str(x.what);
    w.str(x.hint);
  }
}
io::Diagnostics get_diagnostics(ByteReader& r) {
  io::Diagnostics d;
  d.set_limit_per_file(SIZE_MAX);  // the sender already applied its limit
  uint32_t n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    io::Diagnostic x;
    x.severity = r.get<uint8_t>() ? io::Severity::kError : io::Severity::kWarning;
    x.file = r.str();
    x.line = r.get<int64_t>();
    x.offset = r.get<int64_t>();
    x.what = r.str();
    x.hint = r.str();
    d.add(std::move(x));
  }
  return d;
}

// A ParkedFile's bytes, length first, whatever its state.
template <class File>
void put_section(ByteWriter& w, const ParkedFile<File>& f) {
  if (f.packed()) {
    const runtime::PageBuffer& bytes = f.packed_bytes();
    w.put<uint64_t>(bytes.size());
    w.bytes(bytes.data(), bytes.size());
  } else if (f.spilled()) {
    std::vector<char> bytes;
    f.packed_copy(bytes);
    w.put<uint64_t>(bytes.size());
    w.bytes(bytes.data(), bytes.size());
  } else {
    const size_t at = w.data().size();
    w.put<uint64_t>(0);
    File unused;  // not filled: the data is held unpacked
    pack_section(f.read(unused), w);
    const uint64_t n = w.data().size() - at - sizeof(uint64_t);
    std::memcpy(w.data().data() + at, &n, sizeof n);
  }
}

}  // namespace

// A rank's communication ops: per step, its name, then collective and p2p ops.
void pack_section(const readers::CommunicationFile& c, ByteWriter& w) {
  w.put<uint32_t>(static_cast<uint32_t>(c.steps.size()));
  for (const auto& s : c.steps) {
    w.str(s.step);
    w.put<uint8_t>(s.p2p_first);
    put_ops(w, s.collective);
    put_ops(w, s.p2p);
  }
}
void unpack_section(ByteReader& r, readers::CommunicationFile& c) {
  c.steps.resize(r.get<uint32_t>());
  for (auto& s : c.steps) {
    s.step.assign(r.view());
    s.p2p_first = r.get<uint8_t>() != 0;
    get_ops(r, s.collective);
    get_ops(r, s.p2p);
  }
  if (!r.done()) throw std::runtime_error("packed rank data: extra bytes after the ops");
}

// A rank's matrix: its text table, then per step its name, collective and p2p ops.
void pack_section(const readers::MatrixFile& m, ByteWriter& w) {
  const io::StringPool& texts = *m.texts;
  w.put<uint32_t>(static_cast<uint32_t>(texts.size()));
  for (uint32_t i = 0; i < texts.size(); ++i) w.str(texts.str(i));
  w.put<uint32_t>(static_cast<uint32_t>(m.steps.size()));
  for (const auto& s : m.steps) {
    w.str(s.step);
    w.put<uint8_t>(s.p2p_first);
    put_matrix_ops(w, s.collective);
    put_matrix_ops(w, s.p2p);
  }
}
void unpack_section(ByteReader& r, readers::MatrixFile& m) {
  // The texts are distinct, so interning them in order gives them their ids back.
  const uint32_t texts = r.get<uint32_t>();
  for (uint32_t i = 0; i < texts; ++i)
    if (m.keep(r.view()) != i)
      throw std::runtime_error("packed rank data: repeated text in the matrix text table");
  m.steps.resize(r.get<uint32_t>());
  for (auto& s : m.steps) {
    s.step = r.str();
    s.p2p_first = r.get<uint8_t>() != 0;
    s.collective = get_matrix_ops(r, texts);
    s.p2p = get_matrix_ops(r, texts);
  }
  if (!r.done()) throw std::runtime_error("packed rank data: extra bytes after the matrix");
}

// A rank's operator table, as OperatorTable packs it.
void pack_section(const stats::OperatorTable& t, ByteWriter& w) {
  t.pack(w);
}
void unpack_section(ByteReader& r, stats::OperatorTable& t) {
  t = stats::OperatorTable::unpack(r);
  if (!r.done()) throw std::runtime_error("packed rank data: extra bytes after the operators");
}

// A rank's host summary, as host::pack_summary packs it.
void pack_section(const host::HostSummary& s, ByteWriter& w) {
  host::pack_summary(s, w);
}
void unpack_section(ByteReader& r, host::HostSummary& s) {
  s = host::unpack_summary(r);
  if (!r.done()) throw std::runtime_error("packed rank data: extra bytes after the host summary");
}

// A rank's step trace: its columns, then each row's step, whole-run flag and values.
void pack_section(const readers::StepTraceFile& s, ByteWriter& w) {
  put_strings(w, s.columns);
  w.put<uint32_t>(static_cast<uint32_t>(s.rows.size()));
  for (const auto& row : s.rows) {
    w.str(row.step);
    w.put<uint8_t>(row.no_step ? 1 : 0);
    w.put<uint32_t>(static_cast<uint32_t>(row.values.size()));
    w.bytes(row.values.data(), row.values.size() * sizeof(double));
  }
}
void unpack_section(ByteReader& r, readers::StepTraceFile& s) {
  s.columns = get_strings(r);
  s.rows.resize(r.get<uint32_t>());
  for (auto& row : s.rows) {
    row.step = r.str();
    row.no_step = r.get<uint8_t>() != 0;
    row.values.resize(r.get<uint32_t>());
    r.bytes(row.values.data(), row.values.size() * sizeof(double));
  }
  if (!r.done()) throw std::runtime_error("packed rank data: extra bytes after the step trace");
}

void pack_rank_entry(const RankEntry& e, ByteWriter& w) {
  w.put<int32_t>(e.rank);
  w.str(e.path);
  w.str(e.output_dir);
  w.put<uint8_t>(static_cast<uint8_t>(e.framework));
  w.str(e.timestamp);
  put_strings(w, e.files);
  w.put(e.bytes);
  w.put<uint8_t>(static_cast<uint8_t>(e.status));
  put_strings(w, e.problems);
  w.put<uint8_t>(static_cast<uint8_t>(e.export_type));
}

RankEntry unpack_rank_entry(ByteReader& r) {
  RankEntry e;
  e.rank = r.get<int32_t>();
  e.path = r.str();
  e.output_dir = r.str();
  e.framework = static_cast<Framework>(r.get<uint8_t>());
  e.timestamp = r.str();
  e.files = get_strings(r);
  e.bytes = r.get<uint64_t>();
  e.status = static_cast<RankStatus>(r.get<uint8_t>());
  e.problems = get_strings(r);
  e.export_type = static_cast<ExportType>(r.get<uint8_t>());
  return e;
}

void pack_rank_data(const RankData& d, ByteWriter& w) {
  pack_rank_entry(d.entry, w);
  w.put<uint8_t>((d.has_communication ? 1 : 0) | (d.has_matrix ? 2 : 0) |
                 (d.has_step_trace ? 4 : 0) | (d.has_kernels ? 8 : 0) | (d.has_metadata ? 16 : 0));
  // The communication ops, matrix and operator table, each length first, so the root can keep
  // them packed without reading them.
  put_section(w, d.communication);
  put_section(w, d.matrix);
  put_section(w, d.operators);
  put_section(w, d.step_trace);
  w.put<uint8_t>(d.metadata.has_distributed_args);
  const readers::DistributedArgs::Map args = d.metadata.distributed_args.to_map();
  w.put<uint32_t>(static_cast<uint32_t>(args.size()));
  for (const auto& [k, v] : args) {
    w.str(k);
    w.put(v);
  }
  w.put<uint32_t>(static_cast<uint32_t>(d.metadata.parallel_groups.size()));
  for (const auto& g : d.metadata.parallel_groups) {
    w.str(g.group_id());
    w.str(g.group_name());
    w.put<int32_t>(g.group_rank());
    w.put<uint32_t>(static_cast<uint32_t>(g.global_ranks().size()));
    for (int x : g.global_ranks()) w.put<int32_t>(x);
  }
  w.put<uint8_t>(d.has_host ? 1 : 0);
  put_section(w, d.host);  // length first too, so the root parks it unread
  w.put<uint32_t>(static_cast<uint32_t>(d.steps_present.size()));
  for (int64_t s : d.steps_present) w.put(s);
  put_diagnostics(w, d.diagnostics);
  w.put<uint8_t>(d.memory.has_value());
  if (d.memory) d.memory->pack(w);
  w.put(d.files_read);
  w.put(d.bytes_read);
}

namespace {

// One parked part of a rank, length first (put_section's bytes): spilled or kept packed as it
// came, or unpacked into the part.
template <class File>
void get_part(ByteReader& r, ParkedFile<File>& part, bool keep_packed, RankSpill* spill) {
  const auto n = static_cast<size_t>(r.get<uint64_t>());
  const char* bytes = r.skip(n);
  if (spill) {
    spill->park_packed(part, bytes, n);
    return;
  }
  if (keep_packed) {
    part.adopt_packed(runtime::PageBuffer(bytes, n));
    return;
  }
  ByteReader pr(bytes, n);
  File f;
  unpack_section(pr, f);
  part = ParkedFile<File>(std::move(f));
}

}  // namespace

RankData unpack_rank_data(ByteReader& r, bool keep_communication_packed, RankSpill* spill) {
  RankData d;
  d.entry = unpack_rank_entry(r);
  auto flags = r.get<uint8_t>();
  d.has_communication = flags & 1;
  d.has_matrix = flags & 2;
  d.has_step_trace = flags & 4;
  d.has_kernels = flags & 8;
  d.has_metadata = flags & 16;
  get_part(r, d.communication, keep_communication_packed, spill);
  get_part(r, d.matrix, keep_communication_packed, spill);
  get_part(r, d.operators, keep_communication_packed, spill);
  get_part(r, d.step_trace, keep_communication_packed, spill);
  d.metadata.has_distributed_args = r.get<uint8_t>() != 0;
  uint32_t nargs = r.get<uint32_t>();
  readers::DistributedArgs::Map args;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string k = r.str();
    args[k] = r.get<int64_t>();
  }
  d.metadata.distributed_args = readers::DistributedArgs(args);
  // Each group's shape is interned as it is read (readers/parallel_group.h): the root holds one
  // copy of a group however many of the arriving ranks list it.
  const uint32_t groups = r.get<uint32_t>();
  d.metadata.parallel_groups.clear();
  d.metadata.parallel_groups.reserve(groups);
  for (uint32_t i = 0; i < groups; ++i) {
    std::string id = r.str();
    std::string name = r.str();
    const int group_rank = r.get<int32_t>();
    std::vector<int> global_ranks(r.get<uint32_t>());
    for (int& x : global_ranks) x = r.get<int32_t>();
    d.metadata.parallel_groups.emplace_back(std::move(id), std::move(name), group_rank,
                                            std::move(global_ranks));
  }
  d.has_host = r.get<uint8_t>() != 0;
  const auto host_bytes = static_cast<size_t>(r.get<uint64_t>());
  const char* host = r.skip(host_bytes);
  if (spill) {
    spill->park_packed(d.host, host, host_bytes);
  } else if (keep_communication_packed) {
    d.host.adopt_packed(runtime::PageBuffer(host, host_bytes));
  } else {
    ByteReader hr(host, host_bytes);
    host::HostSummary s;
    unpack_section(hr, s);
    d.host = RankHost(std::move(s));
  }
  d.steps_present.resize(r.get<uint32_t>());
  for (int64_t& s : d.steps_present) s = r.get<int64_t>();
  d.diagnostics = get_diagnostics(r);
  if (r.get<uint8_t>() != 0) d.memory = memory::RankMemory::unpack(r);
  d.files_read = r.get<uint64_t>();
  d.bytes_read = r.get<uint64_t>();
  return d;
}

std::vector<char> pack_rank_entries(const std::vector<RankEntry>& entries) {
  ByteWriter w;
  w.put<uint32_t>(static_cast<uint32_t>(entries.size()));
  for (const auto& e : entries) pack_rank_entry(e, w);
  return std::move(w.data());
}

std::vector<RankEntry> unpack_rank_entries(const std::vector<char>& buf) {
  ByteReader r(buf);
  std::vector<RankEntry> entries(r.get<uint32_t>());
  for (auto& e : entries) e = unpack_rank_entry(r);
  return entries;
}

}  // namespace cs::load
