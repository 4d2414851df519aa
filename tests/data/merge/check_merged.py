#!/usr/bin/python3
"""Checks a trace written by `clusterscope merge` against its inputs (used by tests/cli/test_merge.cpp).

usage: check_merged.py MERGED RANK=INPUT... [--align NAME] [--rank-from RANK=ORIGIN]...

Asserts, exactly (timestamps compared as decimals, not floats):
  * event count = sum of the inputs + the process_name / process_sort_index events added for
    processes that had none;
  * every input event comes out in order with the same fields, pid mapped into
    [rank*10000, rank*10000+10000) (no collision across ranks), ts equal to the input's plus the
    rank's shift (0, or with --align the shift that puts the first matching event of every rank at
    the lowest rank's), flow ids renumbered consistently within a rank and never shared across
    ranks, process names "rank N · <name>", process_sort_index = merged pid;
  * flow s/f pairs: per id the same numbers of s and f as in the input;
  * the "clusterscope" member lists every rank (and its rank_from when given).
Prints one line "OK ..." and exits 0, or prints what failed and exits 1.
"""
import collections
import decimal
import gzip
import json
import sys

D = decimal.Decimal
STRIDE = 10000
ALIGN_PHASES = set("XBiIbn")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=D)


def events_of(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ts_of(e):
    return D(str(e["ts"]))


def key_of(v):  # pids/ids: 5 and "5" differ
    return (type(v).__name__, str(v))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main(argv):
    merged_path = argv[1]
    inputs, align, rank_from = [], None, {}
    i = 2
    while i < len(argv):
        a = argv[i]
        if a == "--align":
            align = argv[i + 1]
            i += 2
            continue
        if a == "--rank-from":
            r, o = argv[i + 1].split("=", 1)
            rank_from[int(r)] = o
            i += 2
            continue
        r, p = a.split("=", 1)
        inputs.append((int(r), p))
        i += 1
    inputs.sort()
    merged = load(merged_path)
    if not isinstance(merged, dict) or merged.get("otherData", {}).get("merged_by") != "clusterscope merge":
        fail("no merged_by marker")
    out = events_of(merged)

    ins = [(r, events_of(load(p))) for r, p in inputs]
    shifts = {r: D(0) for r, _ in ins}
    if align:
        first = {}
        for r, ev in ins:
            m = [ts_of(e) for e in ev if e.get("ph") in ALIGN_PHASES and align in str(e.get("name", "")) and "ts" in e]
            if m:
                first[r] = min(m)
        if not first:
            fail("no input has an event named like " + align)
        ref = first[min(first)]
        shifts = {r: (ref - first[r]) if r in first else D(0) for r, _ in ins}

    pos = 0
    all_out_pids, all_flow_ids = {}, {}
    added_total = 0
    for r, ev in ins:
        named, sorted_, pids = set(), set(), []
        for e in ev:
            if "pid" not in e:
                continue
            k = key_of(e["pid"])
            if k not in pids:
                pids.append(k)
            if e.get("ph") == "M" and e.get("name") == "process_name":
                named.add(k)
            if e.get("ph") == "M" and e.get("name") == "process_sort_index":
                sorted_.add(k)
        added = sum(k not in named for k in pids) + sum(k not in sorted_ for k in pids)
        added_total += added
        for e in out[pos:pos + added]:
            if e.get("ph") != "M" or e.get("name") not in ("process_name", "process_sort_index"):
                fail(f"rank {r}: added event is not process metadata: {e}")
            if not (r * STRIDE <= e["pid"] < (r + 1) * STRIDE):
                fail(f"rank {r}: added metadata pid {e['pid']} out of range")
        pos += added
        pid_map, id_map = {}, {}
        flows_in, flows_out = collections.Counter(), collections.Counter()
        for e in ev:
            if pos >= len(out):
                fail(f"rank {r}: output ends early")
            o = out[pos]
            pos += 1
            if list(o.keys()) != list(e.keys()):
                fail(f"rank {r}: fields differ: {list(e.keys())} -> {list(o.keys())}")
            ph = e.get("ph")
            for k, v in e.items():
                w = o[k]
                if k == "pid":
                    if not isinstance(w, int) or not (r * STRIDE <= w < (r + 1) * STRIDE):
                        fail(f"rank {r}: pid {v} -> {w} out of the rank's range")
                    if pid_map.setdefault(key_of(v), w) != w:
                        fail(f"rank {r}: pid {v} mapped to two pids")
                elif k == "ts":
                    if isinstance(w, str) or D(str(w)) != D(str(v)) + shifts[r]:
                        fail(f"rank {r}: ts {v!r} -> {w!r}, expected shift {shifts[r]}")
                elif (k == "id" and ph in ("s", "f", "t")) or k == "bind_id":
                    if id_map.setdefault(key_of(v), w) != w:
                        fail(f"rank {r}: flow id {v} mapped to two ids")
                    flows_in[(key_of(v), ph)] += 1
                    flows_out[(w, ph)] += 1
                elif k == "args" and ph == "M" and e.get("name") == "process_name":
                    if w.get("name") != f"rank {r} \u00b7 " + str(v.get("name")):
                        fail(f"rank {r}: process name {v} -> {w}")
                elif k == "args" and ph == "M" and e.get("name") == "process_sort_index":
                    if w.get("sort_index") != o["pid"]:
                        fail(f"rank {r}: sort index {w} is not the merged pid {o['pid']}")
                elif w != v:
                    fail(f"rank {r}: field {k} changed: {v!r} -> {w!r}")
        if len(set(pid_map.values())) != len(pid_map):
            fail(f"rank {r}: two pids merged into one")
        if len(set(id_map.values())) != len(id_map):
            fail(f"rank {r}: two flow ids merged into one")
        for w in set(pid_map.values()):
            if w in all_out_pids:
                fail(f"pid {w} used by ranks {all_out_pids[w]} and {r}")
            all_out_pids[w] = r
        for w in set(id_map.values()):
            if w in all_flow_ids:
                fail(f"flow id {w} used by ranks {all_flow_ids[w]} and {r}")
            all_flow_ids[w] = r
        inv = {w: v for v, w in id_map.items()}
        for (w, ph), n in flows_out.items():
            if flows_in[(inv[w], ph)] != n:
                fail(f"rank {r}: flow {w} has {n} '{ph}' ends, input had {flows_in[(inv[w], ph)]}")
    if pos != len(out):
        fail(f"output has {len(out) - pos} events more than the inputs")

    meta = merged.get("clusterscope", {}).get("merge", {})
    listed = {m["rank"]: m for m in meta.get("ranks", [])}
    for r, _ in ins:
        if r not in listed:
            fail(f"rank {r} missing from the clusterscope member")
        if r in rank_from and listed[r]["rank_from"] != rank_from[r]:
            fail(f"rank {r}: rank_from {listed[r]['rank_from']}, expected {rank_from[r]}")
    n_in = sum(len(ev) for _, ev in ins)
    print(f"OK events={len(out)} inputs={n_in} added={added_total} ranks={len(ins)} "
          f"flows={len(all_flow_ids)} shifts_ns={[int(shifts[r] * 1000) for r, _ in ins]}")


if __name__ == "__main__":
    main(sys.argv)
