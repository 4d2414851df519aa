#!/usr/bin/python3
"""Splits the real sample tests/data/ascend/cluster_communication.json into per-rank
communication.json inputs (sample_split/rank<N>/): rank "r"'s block of every op becomes rank r's
op, in the sample's order, under the sample's step name and the "collective" section."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "..", "ascend", "cluster_communication.json")) as f:
    doc = json.load(f)
per_rank = {}
for _group, steps in doc.items():
    for step, ops in steps.items():
        for op, ranks in ops.items():
            for r, info in ranks.items():
                per_rank.setdefault(int(r), {}).setdefault(step, {"collective": {}, "p2p": {}})
                per_rank[int(r)][step]["collective"][op] = info
for r, comm in per_rank.items():
    d = os.path.join(HERE, "sample_split", "rank%d" % r)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "communication.json"), "w") as f:
        json.dump(comm, f)
