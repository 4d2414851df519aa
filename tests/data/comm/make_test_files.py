#!/usr/bin/python3
"""Writes the hand-made JSON test inputs of tests/io/test_{communication,matrix,profiler_info}.cpp.

Run from this folder: /usr/bin/python3 make_test_files.py. The per-rank communication.json files
re-nest the real per-rank blocks of ../ascend/cluster_communication.json (msprof-analyze's
cluster file holds, per group and step, op -> {rank: block}; a rank's own communication.json holds
step -> {"collective": {op: block}, "p2p": {...}}).
"""
import copy
import json

cluster = json.load(open("../ascend/cluster_communication.json"))
ops = cluster["(0, 1)"]["step"]


def rank_block(op, rank):
    return copy.deepcopy(ops[op][rank])


def total_of(blocks):
    """Total Op Info as the producer sums it (per-rank version lacks RDMA Bandwidth(GB/s))."""
    t = {"Communication Time Info": {}, "Communication Bandwidth Info": {}}
    for b in blocks:
        for k, v in b["Communication Time Info"].items():
            if k in ("Start Timestamp(us)", "Wait Time Ratio", "Synchronization Time Ratio"):
                t["Communication Time Info"][k] = 0
            else:
                t["Communication Time Info"][k] = t["Communication Time Info"].get(k, 0) + v
        for tr, info in b["Communication Bandwidth Info"].items():
            dst = t["Communication Bandwidth Info"].setdefault(
                tr, {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0,
                     "Large Packet Ratio": 0, "Size Distribution": {}})
            dst["Transit Size(MB)"] += info["Transit Size(MB)"]
            dst["Transit Time(ms)"] += info["Transit Time(ms)"]
            for size, (cnt, dur) in info["Size Distribution"].items():
                old = dst["Size Distribution"].get(size, [0, 0])
                dst["Size Distribution"][size] = [old[0] + cnt, old[1] + dur]
    del t["Communication Bandwidth Info"]["RDMA"]["Bandwidth(GB/s)"]
    return t


names = list(ops)
# rank 0: the real blocks of rank "0", one step "step", plus Total Op Info and two p2p ops.
coll0 = {n: rank_block(n, "0") for n in names}
coll0["Total Op Info"] = total_of(list(coll0.values()))
p2p0 = {
    "hcom_send__501_2@6297232067196334501": rank_block(names[0], "1"),
    "hcom_receive__501_3@6297232067196334501": rank_block(names[1], "1"),
}
rank0 = {"step": {"collective": coll0, "p2p": p2p0}}
with open("rank0_communication.json", "w") as f:
    json.dump(rank0, f, separators=(",", ": "))
# The same document indented, so damage is several lines in.
with open("rank0_communication_indented.json", "w") as f:
    json.dump(rank0, f, indent=4)

# rank 1: two steps, unknown keys, a SIO transport, an op with no transports at all.
coll1 = {n: rank_block(n, "1") for n in names}
b = coll1[names[1]]["Communication Bandwidth Info"]
b["SIO"] = {"Transit Size(MB)": 1.5, "Transit Time(ms)": 0.25, "Bandwidth(GB/s)": 6.0,
            "Large Packet Ratio": 0.0, "Size Distribution": {"0.5": [3, 0.25]}}
coll1["hcom_allGather__501_4@6297232067196334501"] = {
    "Communication Time Info": rank_block(names[0], "1")["Communication Time Info"],
    "Some Future Block": {"x": 1}}
rank1 = {"step1": {"collective": coll1, "p2p": {}, "future_section": {"a": [1, 2]}},
         "step2": {"p2p": {"hcom_batchSendRecv__7_1@6297232067196334501":
                           rank_block(names[0], "0")}, "collective": {}}}
with open("rank1_communication.json", "w") as f:
    json.dump(rank1, f)

# Truncated in the middle of the 3rd op (Total Op Info): the first two ops survive.
text = json.dumps(rank0, indent=4)
cut = text.index('"Total Op Info"') + 300
with open("truncated_communication.json", "w") as f:
    f.write(text[:cut])
# Cut inside a string (an op name of the p2p section).
cut = text.index('"hcom_receive__501_3') + 10
with open("truncated_in_string_communication.json", "w") as f:
    f.write(text[:cut])

# profiler_metadata.json (hand-written) cut inside its second parallel group.
with open("profiler_metadata.json") as f:
    metadata = f.read()
with open("truncated_profiler_metadata.json", "w") as f:
    f.write(metadata[:700])
