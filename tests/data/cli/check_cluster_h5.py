#!/usr/bin/python3
"""Checks OUT/cluster_analysis.h5 against the CSV files written next to it, with h5py (a real
client): every CSV table is an HDF5 group with one dataset per column, same names and order, same
values (the HDF5 file keeps full precision; the CSV number is that value rounded by its unit's rule,
docs/interface.md, redone here with Python's own formatting); units attributes exist; /meta has the
expected attributes.

    check_cluster_h5.py OUT_DIR EXPECTED_RANKS
Prints one line per problem and exits 1 if any.
"""
import csv
import math
import os
import sys

import h5py

# The CSV's digits by unit (interface.md, "Numbers in clusterscope's CSV files").
RULES = {"us": ".3f", "ms": ".6f", "ms per step": ".6f", "MB": ".6f", "s": ".9f", "ns": ".0f",
         "ratio": ".6g", "%": ".6g", "GB/s": ".6g", "TFLOP/s": ".6g"}


def csv_value(v, unit):
    """The value the CSV holds for the full-precision value v of a column in `unit`."""
    if unit not in RULES or not math.isfinite(v):
        return v
    return float(format(v, RULES[unit]))


out, ranks = sys.argv[1], int(sys.argv[2])
problems = []
with h5py.File(os.path.join(out, "cluster_analysis.h5"), "r") as f:
    meta = f["meta"].attrs
    for key in ("tool_version", "input_path", "ranks", "processes", "created"):
        if key not in meta:
            problems.append("meta lacks " + key)
    if int(meta.get("ranks", -1)) != ranks:
        problems.append("meta ranks = %s, expected %d" % (meta.get("ranks"), ranks))
    tables = [n[:-4] for n in sorted(os.listdir(out))
              if n.endswith(".csv") and n != "cluster_step_trace_time.csv"]
    if not tables:
        problems.append("no CSV tables found")
    for name in tables:
        if name not in f:
            problems.append("table %s missing from the HDF5 file" % name)
            continue
        g = f[name]
        with open(os.path.join(out, name + ".csv"), newline="") as fh:
            rows = list(csv.reader(fh))
        header, body = rows[0], rows[1:]
        cols = [c.decode() if isinstance(c, bytes) else str(c) for c in g.attrs["columns"]]
        if cols != header:
            problems.append("%s: columns %s != CSV header %s" % (name, cols, header))
            continue
        for j, col in enumerate(header):
            ds = g[col]
            if "units" not in ds.attrs:
                problems.append("%s/%s has no units attribute" % (name, col))
            if ds.shape[0] != len(body):
                problems.append("%s/%s has %d rows, CSV %d" % (name, col, ds.shape[0], len(body)))
                break
            values = ds.asstr()[:] if ds.dtype.kind in "SOU" else ds[:]
            unit = ds.attrs.get("units", "")
            unit = unit.decode() if isinstance(unit, bytes) else str(unit)
            for i, row in enumerate(body):
                want, got = row[j], values[i]
                if ds.dtype.kind in "SOU":
                    ok = str(got) == want
                else:
                    w = float(want)
                    g_ = float(got) if ds.dtype.kind == "i" else csv_value(float(got), unit)
                    ok = (math.isnan(w) and math.isnan(g_)) or g_ == w
                if not ok:
                    problems.append("%s/%s row %d: h5 %r != csv %r" % (name, col, i, got, want))
                    break
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
