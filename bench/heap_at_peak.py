#!/usr/bin/env python3
"""What is live on the heap at a process's peak, by allocation site, from a heaptrack file.

heaptrack_print's "peak memory consumed" lists each call site's own peak, which may come at
different moments; this replays the recorded allocations and frees to the moment the whole heap
peaked and sums what is live then, by the first clusterscope frame of each allocation's stack
(docs/root_memory.md uses it for the root's stage-4 peak).

  heaptrack -o /tmp/ht build/clusterscope cluster -d JOB -o OUT --quiet
  bench/heap_at_peak.py /tmp/ht.zst [--top 40] [--depth 3] [--since S] [--until S]   (--depth: sites named by their first
  3 clusterscope frames, callee < caller, to tell apart what one function allocates for several)

Under mpirun, trace the root only: mpirun -np 2 bash -c 'if [ $OMPI_COMM_WORLD_RANK = 0 ]; then
exec heaptrack -o /tmp/ht build/clusterscope ...; else exec build/clusterscope ...; fi'.
Reads the file twice (the peak, then the live allocations): about a minute per 100 M events.
"""
import argparse
import collections
import re
import subprocess


def records(path):
    """The lines of a heaptrack data file (zstd, gzip or plain)."""
    tool = ['zstdcat'] if path.endswith('.zst') else ['zcat'] if path.endswith('.gz') else ['cat']
    p = subprocess.Popen(tool + [path], stdout=subprocess.PIPE, bufsize=1 << 20)
    yield from p.stdout
    p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file')
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--until', type=float, default=None,
                    help='the peak before this many seconds of the run (e.g. the load stage)')
    ap.add_argument('--since', type=float, default=None,
                    help='the peak after this many seconds of the run (with --until: a window)')
    ap.add_argument('--depth', type=int, default=1,
                    help='name a site by its first N clusterscope frames (callee < caller)')
    ap.add_argument('--timeline', action='store_true',
                    help='print the live heap once a second (to choose --until)')
    args = ap.parse_args()

    strings, ips, traces = [None], [None], [None]  # heaptrack's indices start at 1
    sizes, alloc_trace = [], []
    cur = peak = peak_at = n = 0
    seconds = 0.0
    printed = -1
    for line in records(args.file):  # pass 1: the tables, and when the heap peaked
        c = line[:1]
        if c == b'c':  # a timestamp (milliseconds)
            seconds = int(line[2:], 16) / 1000
            if args.timeline and int(seconds) > printed:
                printed = int(seconds)
                print(f'{seconds:8.1f} s  {cur / 1e6:8.2f} MB live')
        elif c == b'+':
            cur += sizes[int(line[2:], 16)]
            n += 1
            if cur > peak and (args.until is None or seconds < args.until) and (
                    args.since is None or seconds >= args.since):
                peak, peak_at = cur, n
        elif c == b'-':
            cur -= sizes[int(line[2:], 16)]
        elif c == b'a':
            size, trace = line[2:].split()
            sizes.append(int(size, 16))
            alloc_trace.append(int(trace, 16))
        elif c == b's':
            parts = line.decode(errors='replace').rstrip('\n').split(' ', 2)
            strings.append(parts[2] if len(parts) > 2 else '')
        elif c == b'i':
            ips.append([int(x, 16) for x in line[2:].split()])
        elif c == b't':
            ip, parent = line[2:].split()
            traces.append((int(ip, 16), int(parent, 16)))

    live = collections.Counter()
    n = 0
    for line in records(args.file):  # pass 2: what is live at that moment
        c = line[:1]
        if c == b'+':
            n += 1
            if n > peak_at:
                break
            live[int(line[2:], 16)] += 1
        elif c == b'-':
            live[int(line[2:], 16)] -= 1

    def frames(t):
        out = []
        while t:
            ip, t = traces[t]
            e = ips[ip]  # ip, module, then (function, file, line) of each inlined frame
            out.append(strings[e[2]] if len(e) >= 3 and strings[e[2]] else hex(e[0]))
        return out

    def short(name):
        return re.sub(r'\(.*', '', name.replace('(anonymous namespace)::', ''))

    by_site = collections.Counter()
    for a, count in live.items():
        if count <= 0:
            continue
        fr = frames(alloc_trace[a])
        ours = [short(f) for f in fr if f.startswith('cs::')][:args.depth]
        site = ' < '.join(ours) if ours else short(fr[0]) if fr else '?'
        by_site[site] += count * sizes[a]
    print(f'peak heap {peak / 1e6:.2f} MB; live then by site (MB):')
    for site, b in by_site.most_common(args.top):
        print(f'{b / 1e6:8.2f}  {site[:240]}')


if __name__ == '__main__':
    main()
