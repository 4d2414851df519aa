#!/usr/bin/python3
"""Builds inputs for tests/cli/test_merge.cpp from the real samples.

  make_merge_inputs.py npu OUT TRACE_VIEW [--shift-us X] [--ranks N] [--repeat K]
      OUT/node_<r>_1700000000<r>_ascend_pt/{profiler_info_<r>.json, ASCEND_PROFILER_OUTPUT/trace_view.json}
      for r in 0..N-1 (default 2). Rank r's ts are the sample's plus r*X microseconds, kept as
      strings with their digits (exact decimal arithmetic). --repeat K writes the sample's events
      K times (a bigger file for the memory check); with N > 1 and no shift the ranks share one
      file through symlinks.
"""
import decimal
import json
import os
import sys


def main(argv):
    kind, out, src = argv[1], argv[2], argv[3]
    shift, ranks, repeat = decimal.Decimal(0), 2, 1
    i = 4
    while i < len(argv):
        if argv[i] == "--shift-us":
            shift = decimal.Decimal(argv[i + 1])
        elif argv[i] == "--ranks":
            ranks = int(argv[i + 1])
        elif argv[i] == "--repeat":
            repeat = int(argv[i + 1])
        i += 2
    assert kind == "npu"
    with open(src, encoding="utf-8") as f:
        events = json.load(f)
    first_file = None
    for r in range(ranks):
        d = os.path.join(out, f"node_{r}_1700000000{r}_ascend_pt")
        os.makedirs(os.path.join(d, "ASCEND_PROFILER_OUTPUT"), exist_ok=True)
        with open(os.path.join(d, f"profiler_info_{r}.json"), "w") as f:
            json.dump({"rank_id": r}, f)
        tv = os.path.join(d, "ASCEND_PROFILER_OUTPUT", "trace_view.json")
        if first_file and shift == 0:
            os.symlink(os.path.abspath(first_file), tv)
            continue
        with open(tv, "w", encoding="utf-8") as f:
            f.write("[")
            sep = ""
            for _ in range(repeat):
                for e in events:
                    e = dict(e)
                    if isinstance(e.get("ts"), str) and shift:
                        q = decimal.Decimal(e["ts"]) + shift * r
                        e["ts"] = str(q.quantize(decimal.Decimal("0.001")))
                    f.write(sep + json.dumps(e))
                    sep = ", "
            f.write("]")
        first_file = tv


if __name__ == "__main__":
    main(sys.argv)
