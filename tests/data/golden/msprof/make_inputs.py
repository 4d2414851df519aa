#!/usr/bin/python3
"""Writes the small hand-designed per-rank inputs of the msprof golden tests (deterministic).

    /usr/bin/python3 make_inputs.py        # rewrites */rank*/ inputs; see README.md

Cases:
  tp2pp2     4 ranks, tp=2 pp=2, profiler_metadata.json with parallel_group_info and
             distributed_args; collective + p2p ops, per-rank "Total Op Info" (skipped), matrix
             top1/middle/bottom/total keys with self links, step trace with Preparing.
  set_order  ranks 1, 7, 8, 15, no metadata: groups {1, 8} and {7, 15} whose Python-set order is
             not sorted ("(8, 1)", "(15, 7)"); int and float values; a missing transport; a rank
             without self link in one step (its links cannot be mapped); an invalid link key;
             step trace with an empty Step cell, N/A cells and no Preparing column.
  stages8    8 ranks, tp=2 pp=2 dp=2 with metadata: stage rows and DP/PP/TP indexes.
"""
import csv
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def double_hash(text):
    a, b = 0, 0
    for ch in text:
        a = (a * 29 + ord(ch)) & 0xFFFFFFFF
        b = (b * 131 + ord(ch)) & 0xFFFFFFFF
    return str((a << 32) | b)


def rnd(rng, lo, hi):
    return round(rng.uniform(lo, hi), rng.choice([3, 6, 9, 12]))


def transport(rng, zero=False, sizes=("0.003072", "0.002944")):
    if zero:
        return {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0,
                "Large Packet Ratio": 0, "Size Distribution": {}}
    dist = {}
    for s in rng.sample(list(sizes), rng.randint(1, len(sizes))):
        dist[s] = [rng.randint(1, 30), rnd(rng, 0.001, 0.05)]
    size = sum(float(k) * v[0] for k, v in dist.items())
    time = sum(v[1] for v in dist.values())
    return {"Transit Size(MB)": size, "Transit Time(ms)": time, "Bandwidth(GB/s)": round(size / time, 4),
            "Large Packet Ratio": 0.0, "Size Distribution": dist}


def op_info(rng, transports=("RDMA", "HCCS", "PCIE", "SDMA"), int_times=False):
    elapse = rng.randint(1, 50) if int_times else rnd(rng, 0.5, 150)
    transit = rnd(rng, 0.001, 0.2)
    wait = rnd(rng, 0, elapse / 2)
    sync = rnd(rng, 0, wait)
    info = {"Communication Time Info": {
        "Start Timestamp(us)": 1695054582608213.0 + rng.randint(0, 10 ** 6) / 4,
        "Elapse Time(ms)": elapse, "Transit Time(ms)": transit, "Wait Time(ms)": wait,
        "Synchronization Time(ms)": sync, "Idle Time(ms)": elapse - transit - wait,
        "Wait Time Ratio": round(wait / (wait + transit), 4),
        "Synchronization Time Ratio": round(sync / (sync + transit), 4)},
        "Communication Bandwidth Info": {}}
    for t in transports:
        info["Communication Bandwidth Info"][t] = transport(rng, zero=(t == "RDMA"))
    return info


def link(rng, transport_type, op_name, self_link=False):
    if self_link:
        return {"Transport Type": "LOCAL", "Transit Size(MB)": 0, "Transit Time(ms)": 0,
                "Bandwidth(GB/s)": 0, "Bandwidth(Utilization)": 0, "Large Packet Ratio": 0,
                "Op Name": op_name}
    size, time = rnd(rng, 0.1, 64), rnd(rng, 0.01, 5)
    return {"Transport Type": transport_type, "Transit Size(MB)": size, "Transit Time(ms)": time,
            "Bandwidth(GB/s)": round(size / time, 4), "Bandwidth(Utilization)": 0.5,
            "Large Packet Ratio": 0.0, "Op Name": op_name}


def write_rank(case, rank, comm=None, matrix=None, meta=None, steps=None, info=True):
    d = os.path.join(HERE, case, "rank%d" % rank)
    os.makedirs(d, exist_ok=True)
    for name, doc in (("communication.json", comm), ("communication_matrix.json", matrix),
                      ("profiler_metadata.json", meta)):
        p = os.path.join(d, name)
        if doc is None:
            if os.path.exists(p):
                os.remove(p)
            continue
        with open(p, "w") as f:
            json.dump(doc, f, indent=1)
    p = os.path.join(d, "step_trace_time.csv")
    if steps is None:
        if os.path.exists(p):
            os.remove(p)
    else:
        with open(p, "w", newline="") as f:
            w = csv.writer(f)
            for row in steps:
                w.writerow(row)


def matrix_ops(rng, op_type, group, local, peers, op_base, transport_type="HCCS"):
    out = {}
    for stat in ("top1", "middle", "bottom1", "total"):
        links = {"%d-%d" % (local, local): link(rng, "LOCAL", op_base, self_link=True)}
        for p in peers:
            links["%d-%d" % (local, p)] = link(rng, transport_type, op_base + "_" + stat)
        out["%s-%s@%s" % (op_type, stat, group)] = links
    return out


def case_tp2pp2():
    rng = random.Random(42)
    gid = {"tp0": "10.0.0.1%enp1_60000_0_1700000000000001", "tp1": "10.0.0.1%enp1_60000_1_1700000000000002",
           "pp0": "10.0.0.1%enp1_60000_2_1700000000000003", "pp1": "10.0.0.1%enp1_60000_3_1700000000000004"}
    members = {"tp0": [0, 1], "tp1": [2, 3], "pp0": [0, 2], "pp1": [1, 3]}
    header = ["Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
              "Communication", "Free", "Stage", "Bubble",
              "Communication(Not Overlapped and Exclude Receive)", "Preparing"]
    for r in range(4):
        tp = "tp0" if r < 2 else "tp1"
        pp = "pp0" if r % 2 == 0 else "pp1"
        tph, pph = double_hash(gid[tp]), double_hash(gid[pp])
        comm, matrix = {}, {}
        for step in ("step1", "step2"):
            coll = {}
            for k in range(2):
                coll["hcom_allReduce__844_%d_1@%s" % (k, tph)] = op_info(rng)
            coll["hcom_broadcast__501_0@%s" % tph] = op_info(rng, transports=("HCCS", "SIO", "SDMA"))
            coll["Total Op Info"] = op_info(rng)  # per-rank total: not an op
            p2p = {}
            name = "hcom_send__1_0_1" if r < 2 else "hcom_receive__1_0_1"
            p2p["%s@%s" % (name, pph)] = op_info(rng, transports=("RDMA", "HCCS"))
            comm[step] = {"collective": coll, "p2p": p2p}
            local_tp, local_pp = members[tp].index(r), members[pp].index(r)
            mcoll = matrix_ops(rng, "allreduce", tph, local_tp, [1 - local_tp], "hcom_allReduce__844_0_1")
            mp2p = {}
            if r < 2:
                mp2p.update(matrix_ops(rng, "send", pph, local_pp, [1], "hcom_send__1_0_1", "RDMA"))
            else:
                mp2p["receive-total@%s" % pph] = {
                    "%d-%d" % (local_pp, local_pp): link(rng, "LOCAL", "hcom_receive__1_0_1", True)}
            matrix[step] = {"collective": mcoll, "p2p": mp2p}
        meta = {"distributed_args": {"tensor_model_parallel_size": 2, "pipeline_model_parallel_size": 2,
                                     "data_parallel_size": 1, "context_parallel_size": 1,
                                     "expert_model_parallel_size": 1, "world_size": 4, "rank": r},
                "parallel_group_info": {gid[g]: {"group_name": g[:2], "group_rank": members[g].index(r),
                                                 "global_ranks": members[g]} for g in (tp, pp)}}
        steps = [header]
        for s in (1, 2):
            comp, nov, ov = rnd(rng, 8e4, 9e4), rnd(rng, 1e5, 8e5), rnd(rng, 0, 8e3)
            free, bubble = rnd(rng, 8e5, 1.5e6), (rnd(rng, 0, 1e4) if r >= 2 else 0.0)
            steps.append([r, s, comp, nov, ov, nov + ov, free, comp + nov + free - bubble, bubble,
                          nov - bubble, rnd(rng, 0, 500)])
        write_rank("tp2pp2", r, comm, matrix, meta, steps)


def case_set_order():
    rng = random.Random(7)
    g_pair = double_hash("192.168.0.1%eth0_60000_0_1")     # collective {1, 8}
    g_pp = double_hash("192.168.0.1%eth0_60000_1_2")       # p2p {7, 15}
    g_all = double_hash("192.168.0.1%eth0_60000_2_3")      # collective {1, 7, 8, 15}
    local_all = {1: 0, 7: 1, 8: 2, 15: 3}
    for r in (1, 7, 8, 15):
        comm, matrix = {}, {}
        for step in ("step3", "step10"):
            coll = {"hcom_allGather__12_0_1@%s" % g_all: op_info(rng, int_times=True)}
            if r in (1, 8):
                info = op_info(rng, transports=("HCCS",) if r == 8 else ("RDMA", "HCCS", "PCIE"))
                coll["hcom_reduceScatter__9_0_1@%s" % g_pair] = info
            p2p = {}
            if r in (7, 15):
                name = "hcom_send__3_0_1" if r == 7 else "hcom_receive__3_0_1"
                p2p["%s@%s" % (name, g_pp)] = op_info(rng, transports=("RDMA",))
            comm[step] = {"collective": coll, "p2p": p2p}
            mcoll = {}
            la = local_all[r]
            links = {}
            # rank 15 reports no self link in step10: its local rank 3 cannot be mapped there.
            if not (r == 15 and step == "step10"):
                links["%d-%d" % (la, la)] = link(rng, "LOCAL", "hcom_allGather__12_0_1", True)
            for p in range(4):
                if p != la:
                    links["%d-%d" % (la, p)] = link(rng, "HCCS" if p < 2 else "RDMA", "hcom_allGather__12_0_1")
            mcoll["allgather-total@%s" % g_all] = links
            if r == 1:
                # an invalid key stops the scan of this rank's links for the op (msprof's `break`)
                mcoll["allgather-top1@%s" % g_all] = {"0-0": link(rng, "LOCAL", "x", True), "bad": {},
                                                      "0-1": link(rng, "HCCS", "y")}
            matrix[step] = {"collective": mcoll, "p2p": {}}
        steps = [["Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
                  "Communication", "Free", "Stage", "Bubble",
                  "Communication(Not Overlapped and Exclude Receive)"]]
        vals = [rnd(rng, 1e4, 9e4) for _ in range(8)]
        if r == 8:
            vals[3] = "N/A"
        steps.append([r % 8, ""] + vals)
        write_rank("set_order", r, comm, matrix, None, steps)


def case_stages8():
    rng = random.Random(3)
    tp, pp, dp = 2, 2, 2
    groups = {}
    for r in range(8):
        groups.setdefault("tp%d" % (r // 2), []).append(r)
        groups.setdefault("pp%d" % (r % 4), []).append(r)
        groups.setdefault("dp%d" % ((r // 4) * 2 + r % 2), []).append(r)
    gid = {g: "10.1.0.%d%%eth0_6000%d_0_17000000" % (i, i) for i, g in enumerate(sorted(groups))}
    header = ["Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
              "Communication", "Free", "Stage", "Bubble",
              "Communication(Not Overlapped and Exclude Receive)", "Preparing"]
    for r in range(8):
        mine = [g for g in sorted(groups) if r in groups[g]]
        comm = {"step1": {"collective": {}, "p2p": {}}}
        for g in mine:
            h = double_hash(gid[g])
            if g.startswith("pp"):
                name = "hcom_send__5_0_1" if r < 4 else "hcom_receive__5_0_1"
                comm["step1"]["p2p"]["%s@%s" % (name, h)] = op_info(rng, transports=("HCCS",))
            else:
                comm["step1"]["collective"]["hcom_allReduce__7_0_1@%s" % h] = op_info(rng, transports=("HCCS",))
        meta = {"distributed_args": {"tensor_model_parallel_size": tp, "pipeline_model_parallel_size": pp,
                                     "data_parallel_size": dp, "world_size": 8},
                "parallel_group_info": {gid[g]: {"group_name": g[:2], "group_rank": groups[g].index(r),
                                                 "global_ranks": groups[g]} for g in mine}}
        steps = [header]
        for s in (1, 2):
            steps.append([r, s] + [rnd(rng, 1e3, 1e6) for _ in range(8)] + [0 if r == 0 else 0.0])
        write_rank("stages8", r, comm, None, meta, steps)


if __name__ == "__main__":
    case_tp2pp2()
    case_set_order()
    case_stages8()
