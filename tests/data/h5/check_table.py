#!/usr/bin/python3
"""Checks an HDF5 file written by clusterscope's Hdf5File against an expectation JSON, with h5py.

Usage: check_table.py FILE.h5 EXPECTED.json

EXPECTED.json:
  {"tables": [{"name": "t", "rows": 2, "chunk_rows": 65536,
               "columns": [{"name": "c", "type": "string|int|double", "unit": "us",
                            "values": [...]}]}],
   "absent": ["group names that must not exist"],
   "meta": {"attr": value, ...},                # exact values
   "meta_iso8601": ["created"]}                 # attributes that must be ISO-8601 UTC strings
Prints "ok <tables> <values>" and exits 0, or prints what differs and exits 1.
"""
import json
import math
import re
import struct
import sys

import h5py
import numpy as np


def same_double(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)  # -0.0 != 0.0 here


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_str_attr(obj, name, want, where):
    got = obj.attrs[name]
    if not isinstance(got, str):
        fail(f"{where} attribute {name} is {type(got).__name__}, expected str")
    if got != want:
        fail(f"{where} attribute {name} = {got!r}, expected {want!r}")


def check_table(f, t):
    name = t["name"]
    if name not in f:
        fail(f"group /{name} missing; file has {list(f.keys())}")
    g = f[name]
    if not isinstance(g, h5py.Group):
        fail(f"/{name} is not a group")
    names = [c["name"] for c in t["columns"]]
    if list(g.keys()) != names:
        fail(f"/{name} datasets {list(g.keys())} (iteration order), expected {names}")
    cols_attr = [str(x) for x in g.attrs["columns"]]
    if cols_attr != names:
        fail(f"/{name} attribute columns = {cols_attr}, expected {names}")
    rows = g.attrs["rows"]
    if not isinstance(rows, np.integer) or int(rows) != t["rows"]:
        fail(f"/{name} attribute rows = {rows!r}, expected {t['rows']}")
    count = 0
    for c in t["columns"]:
        ds = g[c["name"]]
        where = f"/{name}/{c['name']}"
        if ds.shape != (t["rows"],):
            fail(f"{where} shape {ds.shape}, expected ({t['rows']},)")
        if ds.maxshape != (None,):
            fail(f"{where} maxshape {ds.maxshape}, expected (None,)")
        # Chunks: min(rows, chunk_rows, 1 MiB / element size), at least 1.
        # A variable-length string column (one very long value among short ones) holds 16-byte
        # references to the file's heap.
        width = 8
        if c["type"] == "string":
            info = h5py.check_string_dtype(ds.dtype)
            if info is not None and info.length is None:
                width = 16
            else:
                width = max([1] + [len(v.encode()) for v in c["values"]])
        chunk = max(1, min(t["rows"], t["chunk_rows"], (1 << 20) // width))
        if ds.chunks != (chunk,):
            fail(f"{where} chunks {ds.chunks}, expected ({chunk},)")
        if ds.compression != "gzip" or ds.compression_opts != 1 or not ds.shuffle:
            fail(f"{where} filters {ds.compression} {ds.compression_opts} shuffle={ds.shuffle}")
        check_str_attr(ds, "units", c["unit"], where)
        want = c["values"]
        if c["type"] == "string":
            info = h5py.check_string_dtype(ds.dtype)
            if info is None or info.encoding != "utf-8":
                fail(f"{where} dtype {ds.dtype} is not a UTF-8 string")
            got = list(ds.asstr()[:])
            if got != want:
                fail(f"{where} values {got!r}, expected {want!r}")
        elif c["type"] == "int":
            if ds.dtype != np.dtype("<i8"):
                fail(f"{where} dtype {ds.dtype}, expected int64")
            got = [int(x) for x in ds[:]]
            if got != want:
                fail(f"{where} values {got}, expected {want}")
        else:
            if ds.dtype != np.dtype("<f8"):
                fail(f"{where} dtype {ds.dtype}, expected float64")
            got = [float(x) for x in ds[:]]
            if len(got) != len(want) or not all(same_double(a, b) for a, b in zip(got, want)):
                bad = next(i for i, (a, b) in enumerate(zip(got, want)) if not same_double(a, b))
                fail(f"{where} row {bad}: {got[bad]!r}, expected {want[bad]!r}")
        count += len(want)
    return count


def main():
    path, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path, encoding="utf-8") as fh:
        exp = json.load(fh)
    values = 0
    with h5py.File(path, "r") as f:
        for t in exp.get("tables", []):
            values += check_table(f, t)
        for name in exp.get("absent", []):
            if name in f:
                fail(f"/{name} exists but should not")
        meta = exp.get("meta")
        if meta is not None:
            m = f["meta"].attrs
            if list(m.keys())[: len(meta)] != list(meta.keys()):
                fail(f"/meta attributes {list(m.keys())}, expected {list(meta.keys())} first")
            for k, want in meta.items():
                got = m[k]
                if isinstance(want, str):
                    check_str_attr(f["meta"], k, want, "/meta")
                elif isinstance(want, int):
                    if not isinstance(got, np.integer) or int(got) != want:
                        fail(f"/meta attribute {k} = {got!r}, expected int {want}")
                elif not isinstance(got, np.floating) or not same_double(float(got), want):
                    fail(f"/meta attribute {k} = {got!r}, expected float {want!r}")
        for k in exp.get("meta_iso8601", []):
            got = f["meta"].attrs[k]
            if not isinstance(got, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got):
                fail(f"/meta attribute {k} = {got!r} is not ISO-8601 UTC")
    print("ok", len(exp.get("tables", [])), values)


if __name__ == "__main__":
    main()
