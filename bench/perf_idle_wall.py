#!/usr/bin/python3
"""Estimates the wall time a `clusterscope cluster` run would take on an idle machine of CORES
cores, from a `perf record` of it taken on a loaded one (docs/scale.md, "Wall time on a shared
machine"). The samples are cut into windows of the run's wall time; within a window each thread's
samples are its CPU time there, and an idle machine needs at least the largest thread's time (a
thread runs on one core at a time) and at least all threads' time divided by the cores. The sum
over the windows is the estimate: the run's critical path, serial stages included, with the
other users' processes taken out. It assumes the load slows every thread of a window alike.

    perf record -F 4000 -o perf.data build/clusterscope cluster -d JOB -o OUT --quiet
    bench/perf_idle_wall.py perf.data 4000 [CORES=2] [WINDOW_S=0.01]
"""
import collections
import re
import subprocess
import sys


def main():
    data, freq = sys.argv[1], float(sys.argv[2])
    cores = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    window = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01
    out = subprocess.run(["perf", "script", "-i", data, "-F", "tid,time"],
                         capture_output=True, text=True, check=True).stdout
    samples = []
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([0-9.]+):", line)
        if m:
            samples.append((int(m.group(1)), float(m.group(2))))
    if not samples:
        sys.exit("no samples in " + data)
    start = samples[0][1]
    windows = collections.defaultdict(collections.Counter)
    for tid, t in samples:
        windows[int((t - start) / window)][tid] += 1
    need = sum(max(max(c.values()), sum(c.values()) / cores) for c in windows.values())
    print("CPU %.3f s in %d samples; recorded wall %.2f s; idle %d-core estimate %.3f s" %
          (len(samples) / freq, len(samples), samples[-1][1] - start, cores, need / freq))


if __name__ == "__main__":
    main()
