#!/usr/bin/env python3
"""The diagnosis accuracy suite through the command line, for any binary (before/after numbers).

usage: bench/diagnosis_accuracy.py [--generator BIN] BIN [BIN...]

The 33 scenarios are those of tests/analysis/test_diagnosis_accuracy.cpp (same shapes, seeds,
per-rank jitter 1%, host gaps up to 2.5 ms a step, stage work, faults), generated once with
--generator (default build/clusterscope: the old binary's generator lacks the noise options), plus
the independent simulator's clean32 and slow21 (tests/data/diagnosis). Each binary runs
`cluster -d JOB -o OUT --format csv --order-by cv` on every job; its slow_ranks.csv, slow_links.csv
and slow_transfers.csv are scored against the truth as the test scores them: slow ranks (a rank
with a slowed kernel may be reported, cause compute, without counting), slow links (unordered
pairs), clean jobs silent, and the slowed kernel type on the slowed rank on top of the spread
ranking (operators_topn.csv's first row by cross-rank CV: key prefix and max_rank).
Prints one markdown table row per binary.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def shape(ranks, tp, pp, seed, steps, first=1.0, last=1.0):
    return {"ranks": ranks, "tp": tp, "pp": pp, "seed": seed, "steps": steps, "first": first,
            "last": last, "slow_ranks": [], "slow_hosts": [], "slow_links": [], "slow_kernels": []}


def scenarios():
    v = []
    add = lambda name, o: v.append((name, o))
    add("clean_16_tp4_pp2", shape(16, 4, 2, 1, 2, 1.0, 1.1))
    add("clean_32_tp8_pp1", shape(32, 8, 1, 2, 1))
    add("clean_16_tp1_pp1", shape(16, 1, 1, 3, 3))
    add("clean_64_tp2_pp4", shape(64, 2, 4, 4, 2, 1.05, 1.15))
    add("clean_128_tp8_pp8", shape(128, 8, 8, 5, 1, 1.0, 1.2))
    add("clean_256_tp4_pp4", shape(256, 4, 4, 6, 2, 1.0, 1.1))
    add("clean_512_tp8_pp8", shape(512, 8, 8, 7, 1, 1.0, 1.1))
    for i, f in enumerate([1.1, 1.2, 1.5, 2.0]):
        o = shape(32, 4, 2, 10 + i, 1 + i % 3, 1.0, 1.1)
        o["slow_ranks"].append((13, f))
        add("slow_%s_32_tp4_pp2" % str(f)[:3], o)

    def one(name, o, rank, f):
        o["slow_ranks"].append((rank, f))
        add(name, o)
    one("slow_1.2_16_tp1_pp1", shape(16, 1, 1, 20, 2), 5, 1.2)
    one("slow_1.1_64_tp8_pp2", shape(64, 8, 2, 21, 3, 1.0, 1.1), 3, 1.1)
    one("slow_1.2_64_tp2_pp8", shape(64, 2, 8, 22, 2, 1.05, 1.1), 63, 1.2)
    one("slow_1.3_128_tp4_pp4", shape(128, 4, 4, 23, 1, 1.0, 1.1), 70, 1.3)
    one("slow_1.15_256_tp8_pp4", shape(256, 8, 4, 24, 2, 1.0, 1.1), 200, 1.15)
    one("slow_1.2_512_tp8_pp8", shape(512, 8, 8, 25, 1, 1.0, 1.1), 300, 1.2)
    one("slow_first_stage_32_tp2_pp4", shape(32, 2, 4, 26, 2, 1.1, 1.1), 1, 1.2)
    one("slow_last_stage_32_tp2_pp4", shape(32, 2, 4, 27, 3, 1.0, 1.15), 31, 1.2)
    o = shape(64, 4, 2, 30, 2, 1.0, 1.1)
    o["slow_ranks"] = [(6, 1.3), (45, 2.0)]
    add("two_slow_64_tp4_pp2", o)
    o = shape(48, 2, 3, 31, 2)
    o["slow_ranks"] = [(16, 1.2), (27, 1.3)]
    add("two_slow_same_stage_48_tp2_pp3", o)
    o = shape(32, 4, 2, 40, 2, 1.0, 1.1)
    o["slow_hosts"].append((9, 40))
    add("slow_host_32_tp4_pp2", o)
    o = shape(64, 2, 4, 41, 1, 1.0, 1.1)
    o["slow_hosts"].append((50, 60))
    add("slow_host_64_tp2_pp4", o)

    def link(name, o, a, b, share):
        o["slow_links"].append((a, b, share))
        add(name, o)
    link("link_hccs_0.3_32", shape(32, 4, 2, 50, 2, 1.0, 1.1), 1, 2, 0.3)
    link("link_hccs_0.6_32", shape(32, 4, 2, 51, 1), 1, 2, 0.6)
    link("link_rdma_0.5_32_tp4", shape(32, 4, 1, 52, 2), 6, 10, 0.5)
    link("link_hccs_0.5_128", shape(128, 8, 4, 53, 2, 1.0, 1.1), 64, 65, 0.5)
    o = shape(32, 4, 2, 60, 2, 1.0, 1.1)
    o["slow_ranks"].append((9, 1.3))
    link("rank_and_link_32", o, 16, 17, 0.5)
    o = shape(512, 8, 4, 61, 1, 1.0, 1.1)
    o["slow_ranks"].append((300, 1.3))
    link("rank_and_link_512", o, 64, 65, 0.5)
    o = shape(64, 2, 8, 62, 3, 1.1, 1.0)
    o["slow_ranks"].append((20, 1.2))
    link("rank_and_link_64_pp8", o, 40, 41, 0.4)

    def kernel(name, o, rank, typ, f):
        o["slow_kernels"].append((rank, typ, f))
        add(name, o)
    kernel("kernel_fa_16_tp4", shape(16, 4, 1, 70, 2), 7, "FlashAttentionScore", 3.0)
    kernel("kernel_ln_64_tp4_pp4", shape(64, 4, 4, 71, 2, 1.0, 1.1), 50, "LayerNorm", 2.0)
    kernel("kernel_mm_32_tp2_pp4", shape(32, 2, 4, 72, 1, 1.0, 1.1), 31, "MatMul", 1.5)
    return v


def generate(gen, d, o):
    args = [gen, "generate", d, "--ranks", str(o["ranks"]), "--tp", str(o["tp"]), "--pp", str(o["pp"]),
            "--steps", str(o["steps"]), "--seed", str(o["seed"]), "--rank-jitter", "0.01",
            "--host-noise", "2500", "--first-stage-work", str(o["first"]),
            "--last-stage-work", str(o["last"]), "--no-trace-view"]
    for r, f in o["slow_ranks"]:
        args += ["--slow-rank", "%d:%s" % (r, f)]
    for r, gap in o["slow_hosts"]:
        args += ["--slow-host", "%d:%s" % (r, gap)]
    for a, b, share in o["slow_links"]:
        args += ["--slow-link", "%d-%d:%s" % (a, b, share)]
    for r, t, f in o["slow_kernels"]:
        args += ["--slow-kernel", "%d:%s:%s" % (r, t, f)]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def truth_of(o):
    ranks = {r: "compute" for r, _ in o["slow_ranks"]}
    ranks.update({r: "host" for r, _ in o["slow_hosts"]})
    links = {tuple(sorted((a, b))) for a, b, _ in o["slow_links"]}
    allowed = {r for r, _, _ in o["slow_kernels"]}
    return ranks, links, allowed


def truth_file(path):
    t = json.load(open(path))
    ranks = {int(k): "compute" for k in t.get("slow_ranks", {})}
    ranks.update({int(k): "host" for k in t.get("slow_hosts", {})})
    links = {tuple(sorted(int(x) for x in k.split("-"))) for k in t.get("slow_links", {})}
    return ranks, links, set()


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Score:
    def __init__(self):
        self.tp = self.fp = self.fn = self.cause = 0

    def p(self):
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    def r(self):
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def c(self):
        return self.cause / self.tp if self.tp else 1.0


def run_suite(binary, jobs, work):
    ranks, links = Score(), Score()
    clean = noisy = kcases = khits = 0
    for name, d, (truth_r, truth_l, allowed), kern in jobs:
        out = os.path.join(work, "out_" + name)
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([binary, "cluster", "-d", d, "-o", out, "--format", "csv", "--order-by", "cv",
                        "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res = os.path.join(out, "cluster_analysis_output")
        found = {}
        for row in rows(os.path.join(res, "slow_ranks.csv")):
            found[int(float(row["rank"]))] = row.get("cause", "")
        for r, cause in found.items():
            if r in truth_r:
                ranks.tp += 1
                ranks.cause += cause == truth_r[r]
            elif r not in allowed:
                ranks.fp += 1
        ranks.fn += sum(1 for r in truth_r if r not in found)
        fl = {tuple(sorted((int(float(x["src_rank"])), int(float(x["dst_rank"])))))
              for x in rows(os.path.join(res, "slow_links.csv"))}
        links.tp += len(fl & truth_l)
        links.fp += len(fl - truth_l)
        links.fn += len(truth_l - fl)
        transfers = rows(os.path.join(res, "slow_transfers.csv"))
        if not truth_r and not truth_l and not allowed:
            clean += 1
            noisy += bool(found or fl or transfers)
        if kern:
            kcases += 1
            top = rows(os.path.join(res, "operators_topn.csv"))
            khits += bool(top) and top[0]["key"].startswith(kern[1]) and \
                int(float(top[0].get("max_rank") or -1)) == kern[0]
        shutil.rmtree(out, ignore_errors=True)
    return ranks, links, clean, noisy, kcases, khits


def main():
    args = sys.argv[1:]
    gen = os.path.join(ROOT, "build", "clusterscope")
    if args and args[0] == "--generator":
        gen, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="cs_accuracy_")
    try:
        jobs = []
        for name, o in scenarios():
            d = os.path.join(work, name)
            generate(gen, d, o)
            jobs.append((name, d, truth_of(o), o["slow_kernels"][0] if o["slow_kernels"] else None))
        data = os.path.join(ROOT, "tests", "data", "diagnosis")
        for job in ("clean32", "slow21"):
            jobs.append(("independent_" + job, os.path.join(data, job),
                         truth_file(os.path.join(data, job + ".truth.json")), None))
        print("| binary | slow ranks P | R | cause right | FP | slow links P | R | clean jobs with a finding | slow kernel on top |")
        print("|---|---|---|---|---|---|---|---|---|")
        for b in args:
            r, l, clean, noisy, kc, kh = run_suite(b, jobs, work)
            print("| %s | %.2f | %.2f | %.2f | %d | %.2f | %.2f | %d of %d | %d of %d |" % (
                b, r.p(), r.r(), r.c(), r.fp, l.p(), l.r(), noisy, clean, kh, kc))
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
