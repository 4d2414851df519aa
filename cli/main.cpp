// clusterscope: cluster-level analysis of Ascend / PyTorch profiler output.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "cli/commands.h"
#include "cli/merge_command.h"
#include "cli/top_command.h"
#include "io/hdf5/hdf5_error.h"
#include "mpi/mpi_comm.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/heap_log.h"
#include "version.h"

namespace {

void print_usage(std::FILE* out) {
  std::fputs(
      "usage: clusterscope <command> [options]\n"
      "\n"
      "commands:\n"
      "  cluster   -d DIR   analyse every rank of a profiled job (MPI-parallel under mpirun)\n"
      "  compare   BASE COMPARISON   GPU vs NPU, or run vs run\n"
      "  generate  OUT --ranks N   write a synthetic cluster with injected faults\n"
      "  top       PROFILE   the slowest operators of one rank directory or trace\n"
      "  merge     DIR -o OUT[.gz]   one Chrome/Perfetto timeline of every rank\n"
      "\n"
      "  clusterscope <command> --help   options of one command\n"
      "  clusterscope --version\n",
      out);
}

}  // namespace

int main(int argc, char** argv) {
  // The root of a multi-process run keeps one malloc arena (its memory bounds the job), so it
  // restarts itself once with larger per-thread caches (runtime/allocator_tuning.h).
  const bool memory_first = cs::mpi::launched_as_root_of_several();
  cs::runtime::restart_with_thread_caches(argv, memory_first);
  // HDF5 is loaded on first use (io/hdf5/hdf5_library.h); under mpirun now, before MPI_Init
  // (cluster, merge), so that it starts without exit-time cleanup (io/hdf5/hdf5_error.h).
  if (cs::mpi::launched_by_mpi()) cs::io::hdf5_start_without_exit_cleanup();
  cs::runtime::tune_allocator_for_batch_parsing(cs::runtime::usable_cores(), memory_first);
  // CS_HEAP_LOG=FILE: the heap's extent and use every 200 ms, in FILE.<pid> (runtime/heap_log.h).
  if (const char* heap_log = std::getenv("CS_HEAP_LOG"); heap_log && *heap_log)
    if (!cs::runtime::start_heap_log(heap_log))
      std::fprintf(stderr, "clusterscope: CS_HEAP_LOG: cannot create %s.<pid>; no heap log\n",
                   heap_log);
  if (argc < 2) {
    print_usage(stderr);
    return cs::runtime::kExitUsage;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    print_usage(stdout);
    return cs::runtime::kExitOk;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::printf("clusterscope %s\n", CLUSTERSCOPE_VERSION);
    return cs::runtime::kExitOk;
  }
  try {
    if (cmd == "cluster") return cs::cli::run_cluster(argc - 1, argv + 1);
    if (cmd == "compare") return cs::cli::run_compare(argc - 1, argv + 1);
    if (cmd == "generate") return cs::cli::run_generate(argc - 1, argv + 1);
    if (cmd == "top") return cs::cli::run_top(argc - 1, argv + 1);
    if (cmd == "merge") return cs::cli::run_merge(argc - 1, argv + 1);
  } catch (const std::exception& e) {
    std::fprintf(
        stderr,
        "clusterscope: %s: internal error: %s \u2014 please report this with the command line\n",
        cmd.c_str(), e.what());
    return cs::runtime::kExitFatal;
  }
  std::fprintf(stderr, "clusterscope: unknown command '%s' \u2014 run 'clusterscope --help'\n",
               cmd.c_str());
  return cs::runtime::kExitUsage;
}
