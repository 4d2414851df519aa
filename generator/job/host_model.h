#pragma once
// The host side of the simulated job, shared by the simulation and the timeline writers:
// where a rank's host is slower than its device (--slow-host R:US, --host-bound) its operators
// are dispatched just before their kernels start (the device waits for them: dispatch gaps);
// where its device is slower (--slow-device R:FACTOR) they run a full launch queue ahead
// (kDeviceBoundLeadUs); elsewhere they run kLaunchLeadUs ahead. Every step starts with the
// DataLoader on the host (the simulation's data-loading time, plus --slow-data R:MS on that rank),
// drawn as an "enumerate(DataLoader)#..." operator up to the step's first launch.

#include "generator/job/options.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// Extra host idle before every kernel launch on every rank of a --host-bound job, µs.
inline constexpr double kHostBoundGapUs = 400.0;
// How far ahead of its kernel a host-limited rank's operator is dispatched, µs.
inline constexpr double kHostLimitedLeadUs = 2.0;
// How far ahead of its kernel a --slow-device rank's operator is dispatched, µs: the host keeps
// launching at its pace and waits only when the device's launch queue is full (below the 300 µs
// a step's data loading takes at least, so a step's first launch still follows its data).
inline constexpr double kDeviceBoundLeadUs = 250.0;
// The DataLoader operator's name, as torch_npu writes it.
inline constexpr const char* kDataLoaderOp =
    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";

// Extra host idle before every kernel launch of `rank`, µs (--slow-host, --host-bound).
double host_gap_us(const GeneratorOptions& o, int rank);
// Extra DataLoader time at the start of every step of `rank`, µs (--slow-data).
double data_delay_us(const GeneratorOptions& o, int rank);
// How far ahead of its kernel `rank`'s operator starts, µs.
double launch_lead_us(const GeneratorOptions& o, int rank);
// Where the DataLoader operator of a step ends: at the simulation's end of data loading, or
// before the step's first operator (the kernel at `first_kernel_us` launched `lead_us` ahead)
// when that starts sooner, so the two never nest. No first kernel: first_kernel_us < 0.
double data_loader_end_us(const StepSpan& span, double first_kernel_us, double lead_us);

}  // namespace cs::generator
