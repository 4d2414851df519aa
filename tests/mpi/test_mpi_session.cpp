// MpiSession without a launcher: MPI is not started and every collective is local.
#include "mpi/mpi_comm.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

using cs::mpi::BatchStream;
using cs::mpi::launched_by_mpi;
using cs::mpi::MpiSession;

namespace {
// This test is not run under a launcher; clear what one would have set, for a clean start.
void forget_launcher() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
        "PMI_FD", "SLURM_PROCID", "SLURM_NTASKS", "CLUSTERSCOPE_MPI"})
    unsetenv(name);
}
}  // namespace

TEST(MpiSession, SeesALauncherByItsVariables) {
  forget_launcher();
  EXPECT_FALSE(launched_by_mpi());
  setenv("PMIX_RANK", "0", 1);
  EXPECT_TRUE(launched_by_mpi());
  unsetenv("PMIX_RANK");
  setenv("CLUSTERSCOPE_MPI", "0", 1);
  EXPECT_FALSE(launched_by_mpi());
  setenv("CLUSTERSCOPE_MPI", "1", 1);
  EXPECT_TRUE(launched_by_mpi());
  unsetenv("CLUSTERSCOPE_MPI");
}

// The root of several processes is known from the launcher's variables before MPI starts (the
// root keeps one malloc arena: runtime/allocator_tuning.h).
TEST(MpiSession, SeesTheRootOfSeveralProcessesByItsVariables) {
  forget_launcher();
  EXPECT_FALSE(cs::mpi::launched_as_root_of_several());
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  EXPECT_FALSE(cs::mpi::launched_as_root_of_several());  // one process: no other to share with
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  EXPECT_TRUE(cs::mpi::launched_as_root_of_several());
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  EXPECT_FALSE(cs::mpi::launched_as_root_of_several());
  forget_launcher();
  setenv("SLURM_PROCID", "0", 1);
  setenv("SLURM_NTASKS", "2", 1);
  EXPECT_TRUE(cs::mpi::launched_as_root_of_several());
  setenv("SLURM_PROCID", "1", 1);
  EXPECT_FALSE(cs::mpi::launched_as_root_of_several());
  forget_launcher();
  setenv("PMI_RANK", "0", 1);
  setenv("PMI_SIZE", "2", 1);
  EXPECT_TRUE(cs::mpi::launched_as_root_of_several());
  forget_launcher();
}

TEST(MpiSession, WithoutALauncherIsOneProcessWithoutMpi) {
  forget_launcher();
  int argc = 1;
  char name[] = "test";
  char* args[] = {name, nullptr};
  char** argv = args;
  MpiSession mpi(argc, argv);
  EXPECT_FALSE(mpi.uses_mpi());
  EXPECT_EQ(mpi.rank(), 0);
  EXPECT_EQ(mpi.size(), 1);
  EXPECT_EQ(mpi.local_size(), 1);
  EXPECT_TRUE(mpi.any(true));
  EXPECT_FALSE(mpi.any(false));
  EXPECT_EQ(mpi.max(7), 7);
  EXPECT_EQ(mpi.sum(7), 7);
  EXPECT_EQ(mpi.max_idle_wait(3), 3);
  EXPECT_EQ(mpi.gather_int64(5), std::vector<int64_t>{5});
  std::vector<char> buf{'a', 'b'};
  mpi.broadcast(buf);
  EXPECT_EQ(buf, (std::vector<char>{'a', 'b'}));
  EXPECT_EQ(mpi.scatter({{'c'}}), (std::vector<char>{'c'}));  // the root's own part
  const auto all = mpi.gather_to_root(buf);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], buf);
  std::vector<int64_t> done;
  std::vector<bool> finished;
  EXPECT_EQ(mpi.poll_progress(done, finished), 0);
  BatchStream stream(mpi);
  stream.send({'x'}, 1);  // the root keeps its own batches: nothing to send
  EXPECT_EQ(stream.poll([](int, std::vector<char>&&) { FAIL() << "no other process"; }), 0);
  mpi.barrier();
}
