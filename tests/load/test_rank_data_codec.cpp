#include "load/rank_data_codec.h"
#include "runtime/spill_file.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <array>
#include <cmath>
#include <csignal>
#include <cstring>

namespace cs::load {
namespace {

load::RankData sample() {
  load::RankData d;
  d.entry.rank = 7;
  d.entry.path = "/data/node1_123_1708156014257_ascend_pt";
  d.entry.output_dir = d.entry.path + "/ASCEND_PROFILER_OUTPUT";
  d.entry.framework = load::Framework::kPyTorch;
  d.entry.timestamp = "1708156014257";
  d.entry.files = {"communication.json", "kernel_details.csv"};
  d.entry.bytes = 123456;
  d.entry.status = load::RankStatus::kPartial;
  d.entry.problems = {"kernel_details.csv: 2 problem(s)"};
  d.has_communication = d.has_step_trace = d.has_kernels = true;
  readers::CommStep step;
  step.step = "step1";
  readers::CommOp op;
  op.name = "hcom_allReduce__844_2_1@13681369207305868844";
  op.has_time_info = op.has_bandwidth_info = true;
  op.time.set(readers::kElapseTimeMs, io::Num::real(121.73694384375));
  op.time.set(readers::kWaitTimeRatio, io::Num::integer(0));
  readers::TransportInfo t;
  t.name = readers::TransportName("HCCS");
  t.set(readers::kTrSizeMb, io::Num::real(0.06393599999999998));
  t.has_size_distribution = true;
  op.transports.push_back(t);
  op.add_bucket({"0.003072", io::Num::integer(18), io::Num::real(0.0202498125)});
  op.transports.push_back(readers::TransportInfo{});
  op.transports.back().name = readers::TransportName("a transport of its own");
  op.add_bucket({"8.0", io::Num::real(2.5), io::Num::integer(3)});
  step.collective.push_back(op);
  op.name = "hcom_send__1@42";
  step.p2p.push_back(op);
  d.communication.edit().steps.push_back(step);
  readers::MatrixStep ms;
  ms.step = "step1";
  readers::MatrixOp mo;
  mo.key = "allreduce-top1@42";
  readers::MatrixLink l;
  l.link_id = d.matrix.edit().keep("0-1");
  l.src_local = 0;
  l.dst_local = 1;
  l.transport = readers::TransportName("HCCS");
  l.set(readers::kLinkSizeMb, io::Num::real(12.0));
  l.set(readers::kLinkTimeMs, io::Num::real(0.71));
  l.set(readers::kLinkUtilization, io::Num::integer(1));
  l.op_name_id = d.matrix.edit().keep("hcom_allReduce__844_2_1");
  l.has_op_name = true;
  mo.links.push_back(l);
  ms.collective.push_back(mo);
  d.matrix.edit().steps.push_back(ms);
  d.step_trace.edit().columns = {"Computing", "Free"};
  d.step_trace.edit().rows.push_back({"1", {80309.68717187493, std::nan("")}});
  d.step_trace.edit().rows.push_back({"", {1.5, 2.5}, /*no_step=*/true});
  d.metadata.has_distributed_args = true;
  d.metadata.distributed_args.set("tensor_model_parallel_size", 2);
  d.metadata.parallel_groups.push_back({"10.0.0.1%eth0_60000_0_1", "tp", 1, {6, 7}});
  d.operators.edit().add("MatMulV2", 185.504, 7);
  d.operators.edit().add("MatMulV2", 501.17, 7);
  d.diagnostics.error("kernel_details.csv", 12, "row has 5 fields", "skipped");
  d.files_read = 3;
  d.bytes_read = 100000;
  return d;
}

std::vector<char> packed(const load::RankData& d) {
  io::ByteWriter w;
  load::pack_rank_data(d, w);
  return w.data();
}

// A part parked the three ways the loader parks it: packed in memory, spilled to `spill`, and
// kept packed as it arrives (`bytes`, a packed rank, unpacked the root's way).
template <class Part>
std::array<load::RankData, 3> parked_three_ways(const load::RankData& a, Part load::RankData::*part,
                                                const std::vector<char>& bytes,
                                                const std::shared_ptr<runtime::SpillFile>& spill) {
  load::RankData b = a;
  (b.*part).pack();
  load::RankData c = a;
  (c.*part).spill(spill);
  io::ByteReader r(bytes);
  load::RankData d = load::unpack_rank_data(r, /*keep_communication_packed=*/true);
  EXPECT_TRUE((b.*part).packed());
  EXPECT_TRUE((c.*part).spilled());
  EXPECT_TRUE((d.*part).packed());
  return {std::move(b), std::move(c), std::move(d)};
}

TEST(RankDataCodec, RoundTripIsBitExact) {
  load::RankData a = sample();
  std::vector<char> bytes = packed(a);
  io::ByteReader r(bytes);
  load::RankData b = load::unpack_rank_data(r);
  EXPECT_TRUE(r.done());
  // Packing the copy again gives the same bytes: every field survived.
  EXPECT_EQ(packed(b), bytes);
  EXPECT_EQ(b.rank(), 7);
  EXPECT_EQ(b.entry.problems, a.entry.problems);
  readers::CommunicationFile unpacked;
  const readers::CommunicationFile& comm = b.communication.read(unpacked);
  EXPECT_NE(&comm, &unpacked);  // held unpacked: the data itself, no copy
  ASSERT_EQ(comm.steps.size(), 1u);
  const auto& op = comm.steps[0].collective[0];
  EXPECT_EQ(op.name, "hcom_allReduce__844_2_1@13681369207305868844");
  EXPECT_EQ(op.time.get(readers::kElapseTimeMs), 121.73694384375);
  EXPECT_TRUE(op.time.num(readers::kWaitTimeRatio).is_int);
  EXPECT_FALSE(op.time.has(readers::kTransitTimeMs));
  ASSERT_EQ(op.transports.size(), 2u);
  EXPECT_EQ(op.transports[0].name, "HCCS");
  EXPECT_TRUE(op.transports[0].has(readers::kTrSizeMb));
  EXPECT_FALSE(op.transports[0].num(readers::kTrSizeMb).is_int);
  EXPECT_FALSE(op.transports[0].has(readers::kTrTimeMs));
  ASSERT_EQ(op.size_distribution(op.transports[0]).size(), 1u);
  EXPECT_EQ(op.size_distribution(op.transports[0])[0].size_key, "0.003072");
  // A name outside the built-in set is sent as text and found again on the other side.
  EXPECT_EQ(op.transports[1].name, "a transport of its own");
  ASSERT_EQ(op.size_distribution(op.transports[1]).size(), 1u);
  EXPECT_EQ(op.size_distribution(op.transports[1])[0].duration_ms.v, 3.0);
  readers::MatrixFile matrix_scratch;
  const readers::MatrixFile& matrix = b.matrix.read(matrix_scratch);
  const readers::MatrixLink& link = matrix.steps[0].collective[0].links[0];
  EXPECT_EQ(link.transport, "HCCS");
  EXPECT_EQ(link.get(readers::kLinkTimeMs), 0.71);
  EXPECT_TRUE(link.has(readers::kLinkUtilization));
  EXPECT_TRUE(link.num(readers::kLinkUtilization).is_int);
  EXPECT_FALSE(link.has(readers::kLinkLargePacketRatio));
  EXPECT_EQ(comm.steps[0].p2p[0].name, "hcom_send__1@42");
  EXPECT_EQ(matrix.op_name(link), "hcom_allReduce__844_2_1");
  EXPECT_EQ(matrix.link_key(link), "0-1");
  readers::StepTraceFile steps_scratch;
  const readers::StepTraceFile& steps = b.step_trace.read(steps_scratch);
  ASSERT_EQ(steps.rows.size(), 2u);
  EXPECT_TRUE(std::isnan(steps.rows[0].values[1]));
  EXPECT_FALSE(steps.rows[0].no_step);
  EXPECT_TRUE(steps.rows[1].no_step);  // a whole-run row survives the trip
  EXPECT_EQ(b.metadata.parallel_groups[0].global_ranks(), (std::vector<int>{6, 7}));
  stats::OperatorTable operators_scratch;
  const stats::OperatorTable& operators = b.operators.read(operators_scratch);
  ASSERT_EQ(operators.keys().count("MatMulV2"), 1u);
  EXPECT_EQ(operators.keys().at("MatMulV2").durations.count, 2);
  EXPECT_EQ(operators.keys().at("MatMulV2").rank_totals.at(7), 185.504 + 501.17);
  EXPECT_EQ(b.diagnostics.error_count(), 1u);
}

// The root can hold a rank's communication data packed until it analyses it: kept packed on
// arrival, sent on as is, unpacked to the same data, and readable in place (groups).
// The root parks a rank's step trace with its ops: kept packed on arrival, spilled, and read
// back the same (the analyses read it through read(), whatever its state).
TEST(RankDataCodec, StepTraceCanStayPackedOrSpilled) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  io::ByteReader r(bytes);
  load::RankData b = load::unpack_rank_data(r, /*keep_communication_packed=*/true);
  EXPECT_TRUE(b.step_trace.packed());
  EXPECT_EQ(packed(b), bytes);
  auto spill = runtime::SpillFile::create();
  b.step_trace.spill(spill);
  EXPECT_TRUE(b.step_trace.spilled());
  EXPECT_EQ(packed(b), bytes);
  readers::StepTraceFile scratch, held_scratch;
  const readers::StepTraceFile& back = b.step_trace.read(scratch);
  const readers::StepTraceFile& held = a.step_trace.read(held_scratch);
  EXPECT_EQ(&back, &scratch);
  EXPECT_EQ(back.columns, held.columns);
  ASSERT_EQ(back.rows.size(), held.rows.size());
  for (size_t i = 0; i < back.rows.size(); ++i) {
    EXPECT_EQ(back.rows[i].step, held.rows[i].step);
    EXPECT_EQ(back.rows[i].no_step, held.rows[i].no_step);
    EXPECT_EQ(std::memcmp(back.rows[i].values.data(), held.rows[i].values.data(),
                          held.rows[i].values.size() * sizeof(double)),
              0);
  }
  EXPECT_TRUE(b.step_trace.spilled());  // reading leaves it spilled
}

TEST(RankDataCodec, CommunicationCanStayPacked) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  io::ByteReader r(bytes);
  load::RankData b = load::unpack_rank_data(r, /*keep_communication_packed=*/true);
  EXPECT_TRUE(r.done());
  EXPECT_TRUE(b.communication.packed());
  EXPECT_EQ(packed(b), bytes);  // sent on as is
  // The packed rank's ops are seen through the accessor (there is no other way to reach them).
  readers::CommunicationFile scratch;
  const readers::CommunicationFile& seen = b.communication.read(scratch);
  EXPECT_EQ(&seen, &scratch);
  ASSERT_EQ(seen.steps.size(), 1u);
  EXPECT_EQ(seen.steps[0].collective[0].name, "hcom_allReduce__844_2_1@13681369207305868844");
  EXPECT_TRUE(b.communication.packed());  // reading leaves it packed
  const load::RankData copy = b;          // a copy holds its own pages
  b.communication.unpack();
  EXPECT_FALSE(b.communication.packed());
  EXPECT_EQ(packed(b), bytes);
  readers::CommunicationFile unused;
  EXPECT_NE(&b.communication.read(unused), &unused);  // unpacked: the held data, no copy
  EXPECT_EQ(b.communication.read(unused).steps.size(), 1u);
  EXPECT_EQ(packed(copy), bytes);
  // And back: the parse threads pack their own ranks the same way.
  b.communication.pack();
  EXPECT_TRUE(b.communication.packed());
  EXPECT_EQ(packed(b), bytes);
  b.communication.unpack();
  b.communication.unpack();  // nothing to do twice
  EXPECT_EQ(packed(b), bytes);
  // edit() of a packed rank unpacks it first: the parsers' --step filter never drops ops unseen.
  load::RankData c = copy;
  ASSERT_TRUE(c.communication.packed());
  EXPECT_EQ(c.communication.edit().steps.size(), 1u);
  EXPECT_FALSE(c.communication.packed());
}

// The root of `cluster` parks ranks' communication data in a spill file: read back on each
// read(), sent on with the same bytes, unpacked to the same data; packed or not before.
TEST(RankDataCodec, CommunicationCanBeSpilled) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  auto spill = runtime::SpillFile::create();
  load::RankData b = a;  // unpacked
  b.communication.spill(spill);
  load::RankData c = a;
  c.communication.pack();
  c.communication.spill(spill);
  for (load::RankData* d : {&b, &c}) {
    EXPECT_TRUE(d->communication.spilled());
    EXPECT_FALSE(d->communication.packed());
    EXPECT_EQ(packed(*d), bytes);
    readers::CommunicationFile scratch;
    const readers::CommunicationFile& seen = d->communication.read(scratch);
    EXPECT_EQ(&seen, &scratch);
    ASSERT_EQ(seen.steps.size(), 1u);
    EXPECT_EQ(seen.steps[0].collective[0].name, "hcom_allReduce__844_2_1@13681369207305868844");
    EXPECT_TRUE(d->communication.spilled());  // reading leaves it spilled
    d->communication.spill(spill);            // nothing to do twice
  }
  std::vector<char> one;  // the packed section of one rank, packed from the parsed ops now
  a.communication.packed_copy(one);
  EXPECT_EQ(spill->size(), 2 * one.size());  // both ranks' sections, nothing else
  b.communication.unpack();
  EXPECT_FALSE(b.communication.spilled());
  EXPECT_EQ(packed(b), bytes);
  EXPECT_EQ(c.communication.edit().steps.size(), 1u);  // edit() unpacks a spilled rank too
  EXPECT_FALSE(c.communication.spilled());
  EXPECT_EQ(packed(c), bytes);
}

// The matrix is parked as the ops are: packed, spilled or kept packed on arrival, read back to
// the same links (texts included) and sent on with the same bytes.
TEST(RankDataCodec, MatrixCanBePackedOrSpilled) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  auto spill = runtime::SpillFile::create();
  auto [b, c, d] = parked_three_ways(a, &load::RankData::matrix, bytes, spill);
  for (load::RankData* x : {&b, &c, &d}) {
    EXPECT_EQ(packed(*x), bytes);
    readers::MatrixFile scratch;
    const readers::MatrixFile& m = x->matrix.read(scratch);
    EXPECT_EQ(&m, &scratch);
    ASSERT_EQ(m.steps.size(), 1u);
    ASSERT_EQ(m.steps[0].collective.size(), 1u);
    const readers::MatrixLink& link = m.steps[0].collective[0].links[0];
    EXPECT_EQ(m.link_key(link), "0-1");
    EXPECT_EQ(m.op_name(link), "hcom_allReduce__844_2_1");
    EXPECT_EQ(link.get(readers::kLinkTimeMs), 0.71);
    EXPECT_EQ(x->matrix.read(scratch).texts->size(), 2u);  // read again: a fresh text table
  }
  std::vector<char> one;
  a.matrix.packed_copy(one);
  EXPECT_EQ(spill->size(), one.size());
  c.matrix.unpack();
  EXPECT_FALSE(c.matrix.spilled());
  EXPECT_EQ(packed(c), bytes);
}

// The operator table is parked as the ops and matrix are: packed, spilled or kept packed on
// arrival, read back to the same table and sent on with the same bytes.
TEST(RankDataCodec, OperatorsCanBePackedOrSpilled) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  auto spill = runtime::SpillFile::create();
  auto [b, c, d] = parked_three_ways(a, &load::RankData::operators, bytes, spill);
  std::vector<char> want;  // the table's own packing
  {
    io::ByteWriter w;
    stats::OperatorTable unused;
    a.operators.read(unused).pack(w);
    want = std::move(w.data());
  }
  for (load::RankData* x : {&b, &c, &d}) {
    EXPECT_EQ(packed(*x), bytes);
    stats::OperatorTable scratch;
    const stats::OperatorTable& t = x->operators.read(scratch);
    EXPECT_EQ(&t, &scratch);
    io::ByteWriter w;
    t.pack(w);
    EXPECT_EQ(w.data(), want);
    std::vector<char> copy;
    x->operators.packed_copy(copy);
    EXPECT_EQ(copy, want);
  }
  EXPECT_EQ(spill->size(), want.size());
  c.operators.unpack();
  EXPECT_FALSE(c.operators.spilled());
  EXPECT_EQ(packed(c), bytes);
  // A damaged packed table is an error, not an empty table.
  std::vector<char> cut(want.begin(), want.end() - 3);
  d.operators.adopt_packed(runtime::PageBuffer(cut.data(), cut.size()));
  stats::OperatorTable scratch;
  EXPECT_THROW(d.operators.read(scratch), std::runtime_error);
}

// A spill file that cannot be written (here a file size limit, as on a full disk) leaves the data
// where it was: the loader then keeps it packed in memory (cluster/cluster_loader.cpp).
TEST(RankDataCodec, FailedSpillLeavesTheDataAsItWas) {
  const load::RankData a = sample();
  const std::vector<char> bytes = packed(a);
  auto spill = runtime::SpillFile::create();
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 4;  // bytes: less than any section
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  load::RankData b = a, c = a;
  c.matrix.pack();
  c.communication.pack();
  c.operators.pack();
  // True when spilling throws std::runtime_error.
  auto fails = [&](auto& parked) {
    try {
      parked.spill(spill);
    } catch (const std::runtime_error&) {
      return true;
    }
    return false;
  };
  const bool failed[] = {fails(b.matrix), fails(b.communication), fails(b.operators),
                         fails(c.matrix), fails(c.communication), fails(c.operators)};
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  for (bool f : failed) EXPECT_TRUE(f);
  EXPECT_FALSE(b.matrix.spilled() || b.matrix.packed());
  EXPECT_TRUE(c.matrix.packed() && !c.matrix.spilled());
  EXPECT_TRUE(c.communication.packed() && !c.communication.spilled());
  EXPECT_FALSE(b.operators.spilled() || b.operators.packed());
  EXPECT_TRUE(c.operators.packed() && !c.operators.spilled());
  EXPECT_EQ(packed(b), bytes);
  EXPECT_EQ(packed(c), bytes);
}

// A damaged packed section is an error, not garbage.
TEST(RankDataCodec, DamagedPackedCommunicationThrows) {
  load::RankData d = sample();
  d.communication.pack();
  const runtime::PageBuffer& bytes = d.communication.packed_bytes();
  std::vector<char> cut(bytes.data(), bytes.data() + bytes.size() - 3);
  d.communication.adopt_packed(runtime::PageBuffer(cut.data(), cut.size()));
  readers::CommunicationFile scratch;
  EXPECT_THROW(d.communication.read(scratch), std::runtime_error);
  EXPECT_THROW(d.communication.unpack(), std::runtime_error);
}

TEST(RankDataCodec, EntriesRoundTrip) {
  std::vector<load::RankEntry> v{sample().entry, load::RankEntry{}};
  auto bytes = load::pack_rank_entries(v);
  auto back = load::unpack_rank_entries(bytes);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].path, v[0].path);
  EXPECT_EQ(back[0].framework, load::Framework::kPyTorch);
  EXPECT_EQ(back[1].rank, -1);
}

TEST(RankDataCodec, TruncatedBufferThrowsInsteadOfReadingGarbage) {
  std::vector<char> bytes = packed(sample());
  bytes.resize(bytes.size() / 2);
  io::ByteReader r(bytes);
  EXPECT_THROW(load::unpack_rank_data(r), std::runtime_error);
}

}  // namespace
}  // namespace cs::load

namespace cs::load {
namespace {

// A rank's ops of a given shape: `ops` collectives a step over `steps` steps, each with
// `transports` transports of one size bucket each, names `width` characters long (short names
// fit in std::string's own buffer, long ones do not).
readers::CommunicationFile comm_of_shape(size_t steps, size_t ops, size_t transports, size_t width,
                                         uint32_t seed) {
  readers::CommunicationFile f;
  for (size_t s = 0; s < steps; ++s) {
    readers::CommStep step;
    step.step = "step" + std::to_string(s + seed);
    step.p2p_first = (s + seed) % 2 == 1;
    for (size_t o = 0; o < ops; ++o) {
      readers::CommOp op;
      op.name = std::string(width, static_cast<char>('a' + (o + seed) % 26)) + "@" +
                std::to_string(seed * 1000 + o);
      op.has_time_info = (o + seed) % 3 != 0;
      op.has_bandwidth_info = o % 2 == 0;
      op.time.set(readers::kElapseTimeMs, io::Num::real(0.5 * static_cast<double>(o + seed)));
      if (o % 4 == 0) op.time.set(readers::kWaitTimeRatio, io::Num::integer(seed));
      for (size_t t = 0; t < transports; ++t) {
        readers::TransportInfo ti;
        ti.name = readers::TransportName(t % 2 == 0 ? "HCCS" : "RDMA");
        ti.set(readers::kTrSizeMb, io::Num::real(static_cast<double>(t + o) / 3.0));
        ti.has_size_distribution = t % 2 == 0;
        op.transports.push_back(ti);
        op.add_bucket({std::to_string(t * 3 + seed) + ".5", io::Num::integer(t),
                       io::Num::real(1.25 * static_cast<double>(o))});
      }
      (o % 5 == 4 ? step.p2p : step.collective).push_back(std::move(op));
    }
    f.steps.push_back(std::move(step));
  }
  return f;
}

std::vector<char> section_bytes(const readers::CommunicationFile& f) {
  io::ByteWriter w;
  pack_section(f, w);
  return w.data();
}

// Readers reuse one scratch rank after rank (and a thread's buffer for the spilled bytes):
// whatever the scratch held before (more or fewer steps, ops, transports, buckets, longer or
// shorter names), a read gives exactly the rank's ops, as a fresh scratch would; a block larger
// than the thread's kept buffer (4 MiB) reads back the same.
TEST(RankDataCodec, ReusedScratchReadsEachRankAsAFreshOne) {
  const std::vector<readers::CommunicationFile> files = {
      comm_of_shape(3, 40, 3, 60, 1), comm_of_shape(1, 5, 1, 4, 2),
      comm_of_shape(0, 0, 0, 0, 3),   comm_of_shape(4, 60, 2, 30, 4),
      comm_of_shape(2, 10, 0, 8, 5),  comm_of_shape(1, 30000, 1, 40, 6),  // > 4 MiB packed
      comm_of_shape(2, 7, 4, 100, 7)};
  ASSERT_GT(section_bytes(files[5]).size(), size_t{4} << 20);
  auto spill = runtime::SpillFile::create();
  std::vector<RankCommunication> spilled, packed_only;
  for (const auto& f : files) {
    spilled.emplace_back(readers::CommunicationFile(f)).spill(spill);
    packed_only.emplace_back(readers::CommunicationFile(f)).pack();
  }
  readers::CommunicationFile scratch;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < files.size(); ++i) {
      const size_t k = round == 0 ? i : files.size() - 1 - i;  // growing and shrinking orders
      const std::vector<char> want = section_bytes(files[k]);
      EXPECT_EQ(section_bytes(spilled[k].read(scratch)), want) << "spilled rank " << k;
      EXPECT_EQ(section_bytes(packed_only[k].read(scratch)), want) << "packed rank " << k;
      readers::CommunicationFile fresh;
      EXPECT_EQ(section_bytes(spilled[k].read(fresh)), want) << "rank " << k;
    }
  }
}

}  // namespace
}  // namespace cs::load
