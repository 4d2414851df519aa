#pragma once
// SIGINT / SIGTERM: the signal handler only records the signal (async-signal-safe); the work
// stops at the next checkpoint (between stages, rank batches, tables, and in MPI waits), where
// the command's interrupt action runs: remove its .tmp files, print one line, exit 128 + signal
// (130 for SIGINT, 143 for SIGTERM).
//
//   install_interrupt_handlers();
//   set_interrupt_action([](int sig) { cleanup(); std::_Exit(interrupt_exit_code(sig)); });
//   for (...) { interrupt_checkpoint("parse"); parse(...); }
//
// Test hook: CLUSTERSCOPE_TEST_INTERRUPT=<stage>[:TERM] makes interrupt_checkpoint(<stage>)
// raise SIGINT (or SIGTERM) in this process, so the tests interrupt a run at a known place;
// CLUSTERSCOPE_TEST_INTERRUPT=wait:<stage> makes it print "clusterscope: test hook: waiting for
// a signal at <stage>" and wait there (at most 120 s) for a real signal from outside.
// Stages: "load" (before each rank is parsed), "loaded" (after the load), "table" (before each
// table is written), "write" (before the HDF5 file and the report are finished), "idle" (an
// MPI process waiting for the root).

#include <functional>
#include <string_view>

namespace cs::runtime {

// Installs the handlers for SIGINT and SIGTERM (once per process; later calls do nothing). A
// signal ignored when the process started (nohup, a background job of a script) stays ignored.
void install_interrupt_handlers();

// The signal received (SIGINT or SIGTERM), 0 when none.
int pending_interrupt();

// The exit status for an interrupt by `sig`: 128 + sig (130 SIGINT, 143 SIGTERM).
int interrupt_exit_code(int sig);

// "SIGINT", "SIGTERM", else "signal N".
const char* interrupt_signal_name(int sig);

// What a checkpoint does once a signal arrived; must not return (it exits the process). The
// default prints nothing and exits with interrupt_exit_code(). Only the first checkpoint to see
// the signal runs it; other threads reaching a checkpoint then wait for the exit.
void set_interrupt_action(std::function<void(int sig)> action);

// Runs the test hook for `stage`, then the interrupt action when a signal is pending.
void interrupt_checkpoint(std::string_view stage);

}  // namespace cs::runtime
