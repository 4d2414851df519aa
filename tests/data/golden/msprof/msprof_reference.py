#!/usr/bin/python3
"""Independent Python model of msprof-analyze's text-mode cluster outputs.

Given a directory of per-rank inputs (rank<N>/communication.json, communication_matrix.json,
step_trace_time.csv, profiler_metadata.json, all optional), writes the four files msprof-analyze
writes to cluster_analysis_output/: communication_group.json, cluster_communication.json,
cluster_communication_matrix.json, cluster_step_trace_time.csv.

Written from the behaviour described in docs/msprof-compat.md (read from msprof-analyze's
cluster_analyse sources), NOT from clusterscope's C++: it uses real Python dicts, sets, floats,
json.dumps and csv.writer, so ordering and number formatting quirks come out as Python makes them.
Ranks are processed in ascending rank order.

    /usr/bin/python3 msprof_reference.py CASE_DIR OUT_DIR
"""
import csv
import json
import os
import sys

EPS = 1e-15


def group_of(key):
    return key.split("@")[-1]


def double_hash(text):
    a, b = 0, 0
    for ch in text:
        a = (a * 29 + ord(ch)) & 0xFFFFFFFF
        b = (b * 131 + ord(ch)) & 0xFFFFFFFF
    return (a << 32) | b


def ratio(x, y):
    return 0 if abs(y) < EPS else round(x / y, 4)


def load(case_dir):
    ranks = {}
    for name in sorted(os.listdir(case_dir), key=lambda n: int(n[4:]) if n.startswith("rank") else -1):
        if not name.startswith("rank"):
            continue
        d = os.path.join(case_dir, name)
        r = int(name[4:])
        entry = {"comm": {}, "matrix": {}, "meta": None, "steps": None}
        for key, fname in (("comm", "communication.json"), ("matrix", "communication_matrix.json"),
                           ("meta", "profiler_metadata.json")):
            p = os.path.join(d, fname)
            if os.path.exists(p):
                with open(p) as f:
                    entry[key] = json.load(f)
        p = os.path.join(d, "step_trace_time.csv")
        if os.path.exists(p):
            with open(p, newline="") as f:
                entry["steps"] = list(csv.DictReader(f))
        ranks[r] = entry
    return ranks


def comm_groups(ranks):
    coll, p2p = {}, {}
    for r, e in ranks.items():
        for source in (e["comm"], e["matrix"]):
            for step_dict in source.values():
                for kind, target in (("collective", coll), ("p2p", p2p)):
                    for key in step_dict.get(kind, {}):
                        if not key.startswith("Total"):
                            target.setdefault(group_of(key), set()).add(r)
    parallel = {}
    for r, e in ranks.items():
        if e["meta"]:
            for gid, info in e["meta"].get("parallel_group_info", {}).items():
                parallel.setdefault(gid, info)
    by_name = {}
    for gid, info in parallel.items():
        by_name.setdefault(str(double_hash(gid)), (gid, info))
    records = []
    for kind, groups in (("collective", coll), ("p2p", p2p)):
        for name, s in groups.items():
            rank_set, gid, pg = sorted(s), "", ""
            if name in by_name:
                gid, info = by_name[name]
                pg = info.get("group_name", "")
                glob = sorted(info.get("global_ranks", []))
                if glob:
                    rank_set = glob
            records.append({"type": kind, "rank_set": rank_set, "group_name": name,
                            "group_id": gid, "pg_name": pg})
    doc = {"collective": [list(s) for s in coll.values()], "p2p": [list(s) for s in p2p.values()],
           "comm_group_parallel_info": records}
    return coll, p2p, doc


def by_tuple(ranks, source, coll, p2p):
    out = {}
    for r, e in ranks.items():
        for step, step_dict in e[source].items():
            for kind, ops in step_dict.items():
                for key, info in ops.items():
                    if key.startswith("Total"):
                        continue
                    sets = p2p if kind == "p2p" else coll
                    tup = tuple(sets.get(group_of(key), []))
                    out.setdefault(tup, {}).setdefault(step, {}).setdefault(key, {}).setdefault(r, info)
    return out


def communication_totals(step_dict):
    totals = {}
    for key, per_rank in step_dict.items():
        g = group_of(key)
        for r, info in per_rank.items():
            for block, content in info.items():
                if block not in ("Communication Time Info", "Communication Bandwidth Info"):
                    continue
                tot = totals.setdefault(g, {}).setdefault(
                    r, {"Communication Time Info": {}, "Communication Bandwidth Info": {}})
                if block == "Communication Time Info":
                    t = tot[block]
                    for field, v in content.items():
                        if field in ("Wait Time Ratio", "Synchronization Time Ratio", "Start Timestamp(us)"):
                            continue
                        t[field] = t.get(field, 0.0) + v
                else:
                    b = tot[block]
                    for transport, tinfo in content.items():
                        tb = b.setdefault(transport, {"Transit Time(ms)": 0, "Transit Size(MB)": 0,
                                                      "Size Distribution": {}})
                        for field, v in tinfo.items():
                            if field in ("Transit Time(ms)", "Transit Size(MB)"):
                                tb[field] += v
                            elif field == "Size Distribution":
                                for size, (count, dur) in v.items():
                                    cell = tb["Size Distribution"].setdefault(size, [0, 0])
                                    cell[0] += count
                                    cell[1] += dur
    for g, per_rank in totals.items():
        for r, tot in per_rank.items():
            t = tot["Communication Time Info"]
            wait, sync, transit = (t.get("Wait Time(ms)", 0), t.get("Synchronization Time(ms)", 0),
                                   t.get("Transit Time(ms)", 0))
            t["Wait Time Ratio"] = ratio(wait, wait + transit)
            t["Synchronization Time Ratio"] = ratio(sync, sync + transit)
            for tb in tot["Communication Bandwidth Info"].values():
                tb["Bandwidth(GB/s)"] = ratio(tb["Transit Size(MB)"], tb["Transit Time(ms)"])
        step_dict["Total Op Info@" + g] = per_rank


def add_link(acc, link):
    acc["Transport Type"] = link.get("Transport Type")
    acc["Op Name"] = link.get("Op Name", "")
    acc["Transit Time(ms)"] += link.get("Transit Time(ms)", 0)
    acc["Transit Size(MB)"] += link.get("Transit Size(MB)", 0)


def new_link():
    return {"Transport Type": "", "Transit Time(ms)": 0, "Transit Size(MB)": 0, "Op Name": ""}


# --metadata-ranks: map local ranks through profiler_metadata.json first (sorted global_ranks,
# local i = i-th), self links second: what docs/formats.md §6 and clusterscope's default describe.
# Without it: self links only, as msprof-analyze actually behaves (its metadata lookup never hits).
METADATA_MAP = {}


def metadata_map(ranks):
    out = {}
    for e in ranks.values():
        info = (e["meta"] or {}).get("parallel_group_info") or {}
        for gid, pg in info.items():
            g = str(double_hash(gid))
            gr = sorted(pg.get("global_ranks") or [])
            if gr and g not in out:
                out[g] = {str(i): r for i, r in enumerate(gr)}
    return out


def matrix_step(step_dict):
    local_to_global = {g: dict(m) for g, m in METADATA_MAP.items()}
    for key, per_rank in step_dict.items():
        g = group_of(key)
        for r, links in per_rank.items():
            for lk in links:
                if "-" not in lk:
                    break
                parts = lk.split("-")
                if parts[0] == parts[1]:
                    local_to_global.setdefault(g, {}).setdefault(parts[0], r)
    for key in list(step_dict):
        g = group_of(key)
        merged = {}
        for links in step_dict[key].values():
            for lk, link in links.items():
                if "-" not in lk:
                    break
                add_link(merged.setdefault(lk, new_link()), link)
        m = local_to_global.get(g, {})
        out = {}
        for lk, acc in merged.items():
            parts = lk.split("-")
            if parts[0] not in m or parts[1] not in m:
                continue
            acc["Bandwidth(GB/s)"] = ratio(acc["Transit Size(MB)"], acc["Transit Time(ms)"])
            out["%d-%d" % (m[parts[0]], m[parts[1]])] = acc
        step_dict[key] = out
    totals = {}
    for key, links in step_dict.items():
        if any(word in key for word in ("middle", "top", "bottom")):
            continue
        for lk, link in links.items():
            add_link(totals.setdefault(group_of(key), {}).setdefault(lk, new_link()), link)
    for g, links in totals.items():
        for acc in links.values():
            acc["Bandwidth(GB/s)"] = ratio(acc["Transit Size(MB)"], acc["Transit Time(ms)"])
        step_dict["Total Op Info@" + g] = links


def stages(records):
    coll = [set(x["rank_set"]) for x in records if x["type"] == "collective"]
    links = [set(x["rank_set"]) for x in records
             if x["type"] == "p2p" and x["pg_name"].lower().startswith("pp")]
    if not links:
        return []
    links.sort(key=min)
    unions = []
    while links:
        u = set(links[0])
        taken = [links[0]]
        for other in links[1:]:
            if u & other:
                u = u.union(other)
                taken.append(other)
        unions.append(u)
        links = [x for x in links if x not in taken]
    found = {}
    for s in coll:
        if any(len(s & u) > 1 for u in unions):
            continue
        joined, drop = set(), []
        for first, st in found.items():
            if s & st:
                merged = set()
                for part in (s, st, joined):
                    merged |= part
                joined = merged
                drop.append(first)
        if joined:
            for k in drop:
                del found[k]
            found[min(joined)] = joined
        else:
            found[min(s)] = s
    return [list(found[k]) for k in sorted(found)]


def megatron(args):
    world = args.get("world_size", 1)
    tp = args.get("tensor_model_parallel_size", 1) or 1
    pp = args.get("pipeline_model_parallel_size", 1) or 1
    dp = args.get("data_parallel_size", 1) or 1
    cp = args.get("context_parallel_size", 1)
    ep = args.get("expert_model_parallel_size", 1) or 1
    if dp % ep or dp * cp % ep or world != tp * pp * dp:
        return None
    per_stage = world // pp
    dp_groups = []
    for i in range(pp):
        for k in range(tp * cp):
            dp_groups.append(list(range(per_stage * i + k, per_stage * (i + 1), tp * cp)))
    table = [None] * world
    try:
        mp_groups = [[g[i] for g in dp_groups] for i in range(dp)]
    except IndexError:
        return None
    for i, mp in enumerate(mp_groups):
        for pp_idx, j in enumerate(range(0, len(mp), tp)):
            for k, r in enumerate(mp[j:j + tp]):
                table[r] = (i, pp_idx, k)
    return table


def step_trace(ranks, records):
    rows, header, args, with_file = [], None, None, 0
    for r, e in ranks.items():
        if not args and e["meta"]:
            args = e["meta"].get("distributed_args")
        if e["steps"] is None:
            continue
        with_file += 1
        for row in e["steps"]:
            values = []
            for k, v in row.items():
                if k in ("Step", "Device_id"):
                    continue
                try:
                    values.append(float(v))
                except (TypeError, ValueError):
                    values.append(0)
            rows.append([row.get("Step", ""), "rank", r] + values)
            if header is None:
                header = ["Step", "Type", "Index"] + [k for k in row if k not in ("Step", "Device_id")]
    if not rows:
        return None
    st = stages(records)
    if st:
        grouped = {}
        for row in rows:
            key = ()
            for s in st:
                if row[2] in s:
                    key = tuple(s)
                    break
            grouped.setdefault((row[0], key), []).append(row[3:])
        for (step, key), vals in grouped.items():
            rows.append([step, "stage", key] + [max(col) for col in zip(*vals)])
    if args:
        table = megatron(args)
        if table is None or len(table) < with_file:
            args = None
        else:
            for row in rows:
                if isinstance(row[2], int):
                    row.extend(list(table[row[2]]) if table[row[2]] else ["NA"] * 3)
                else:
                    row.extend(["NA"] * 3)
    if args:
        header = header + ["DP Index", "PP Index", "TP Index"]
    return header, rows


def main(case_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    ranks = load(case_dir)
    coll, p2p, group_doc = comm_groups(ranks)

    def dump(name, doc):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(json.dumps(doc))

    dump("communication_group.json", group_doc)
    comm = by_tuple(ranks, "comm", coll, p2p)
    if comm:
        for steps in comm.values():
            for step_dict in steps.values():
                communication_totals(step_dict)
        dump("cluster_communication.json", {str(k): v for k, v in comm.items()})
    matrix = by_tuple(ranks, "matrix", coll, p2p)
    if matrix:
        for steps in matrix.values():
            for step_dict in steps.values():
                matrix_step(step_dict)
        dump("cluster_communication_matrix.json", {str(k): v for k, v in matrix.items()})
    st = step_trace(ranks, group_doc["comm_group_parallel_info"])
    if st:
        with open(os.path.join(out_dir, "cluster_step_trace_time.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(st[0])
            w.writerows(st[1])


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--metadata-ranks" in sys.argv:
        METADATA_MAP.update(metadata_map(load(args[0])))
    main(args[0], args[1])
