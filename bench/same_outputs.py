"""Are clusterscope's outputs of one mode the same as msprof-analyze's?

usage: python3 same_outputs.py MODE CS_OUT MSPROF_OUT [MSPROF_JOB]

CS_OUT and MSPROF_OUT are the two tools' `-o` directories. MSPROF_JOB is the job msprof-analyze
ran on, for the recipes that write into the rank databases (p2p_pairing, pp_chart: clusterscope
writes copies under CS_OUT/cluster_analysis_output/<Recipe>/<path below -d>; mstx2commop's copies
are there in both outputs), and for export_summary, whose CSVs the benchmark moves from the job
to MSPROF_OUT/job/<path below -d>.
Compared:
- cluster_analysis.db: every table msprof-analyze wrote, its CREATE statement and its rows in
  table order, each value with its storage class and exact bits (as tests/recipes/recipe_test_util.h
  dump_sqlite); a table only one tool wrote is a difference.
- rank databases: COMMUNICATION_OP and StepTaskInfo (CREATE statements of the table and its
  indexes, rows in table order). mstx2commop numbers its new ops and STRING_IDS in the iteration
  order of Python sets (it changes with the hash seed), so for it the ids are resolved to their
  texts and opId is checked to be 0..n-1 (as tests/data/generated-db/mc_mstx2commop/dump.py), and
  the rows are compared sorted: ops of equal start come in that set's order too.
- CSV files byte for byte.
Prints "yes" or "no: <first differences>"; exits 0 either way (2 on bad usage).
"""
import filecmp
import os
import sqlite3
import sys

RANK_DB_RECIPES = {"p2p_pairing": "P2PPairing", "pp_chart": "PPChart", "mstx2commop": "Mstx2Commop"}
OUT = "cluster_analysis_output"


def cell(v):
    if v is None:
        return "NULL"
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "r:%r" % v
    if isinstance(v, bytes):
        return "b:" + v.hex()
    return "t:" + v


def rows(con, sql):
    return ["|".join(cell(v) for v in r) for r in con.execute(sql)]


def schema(con, table):
    return rows(con, "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = '%s' "
                     "ORDER BY type DESC, name" % table)


def tables(con):
    return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]


def compare_lists(what, got, want, problems):
    if got == want:
        return
    if len(got) != len(want):
        problems.append("%s: %d rows against %d" % (what, len(got), len(want)))
        return
    i = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
    same_set = sorted(got) == sorted(want)
    problems.append("%s: row %d differs%s (%s against %s)" %
                    (what, i, ", the same rows in another order" if same_set else "", got[i][:120],
                     want[i][:120]))


def compare_cluster_db(cs_out, ms_out, problems):
    cs = os.path.join(cs_out, OUT, "cluster_analysis.db")
    ms = os.path.join(ms_out, OUT, "cluster_analysis.db")
    if not os.path.exists(ms):
        if os.path.exists(cs):
            problems.append("cluster_analysis.db written by clusterscope only")
        return 0
    if not os.path.exists(cs):
        problems.append("cluster_analysis.db written by msprof-analyze only")
        return 0
    a, b = sqlite3.connect(cs), sqlite3.connect(ms)
    ta, tb = tables(a), tables(b)
    if ta != tb:
        problems.append("tables %s against %s" % (ta, tb))
    for t in tb:
        if t not in ta:
            continue
        compare_lists(t + " schema", schema(a, t), schema(b, t), problems)
        compare_lists(t, rows(a, 'SELECT * FROM "%s"' % t), rows(b, 'SELECT * FROM "%s"' % t), problems)
    return len(tb)


MSTX2COMMOP_QUERIES = [
    "SELECT count(DISTINCT opId) = count(*), min(opId), max(opId) + 1 = count(*) FROM COMMUNICATION_OP",
    "SELECT n.value, c.startNs, c.endNs, c.connectionId, g.value, c.relay, c.retry, c.dataType, "
    "c.algType, c.count, t.value FROM COMMUNICATION_OP c LEFT JOIN STRING_IDS n ON n.id = c.opName "
    "LEFT JOIN STRING_IDS g ON g.id = c.groupName LEFT JOIN STRING_IDS t ON t.id = c.opType "
    "ORDER BY c.rowid",
    "SELECT count(DISTINCT id) = count(*) FROM STRING_IDS",
    "SELECT value FROM STRING_IDS ORDER BY value",
]


def rank_db_text(path, mode):
    con = sqlite3.connect(path)
    have = tables(con)
    text = []
    for t in ("COMMUNICATION_OP", "StepTaskInfo"):
        if t in have:
            text += ["== " + t] + schema(con, t)
            if mode != "mstx2commop":
                text += rows(con, 'SELECT * FROM "%s"' % t)
    if mode == "mstx2commop" and "COMMUNICATION_OP" in have:
        for q in MSTX2COMMOP_QUERIES:
            # Ops of equal start: msprof-analyze's order comes from a Python set's (hash seed).
            text += sorted(rows(con, q)) if "ORDER BY c.rowid" in q else rows(con, q)
    return text


def written_by_msprof(path, mode):
    """Did msprof-analyze write into this rank database (in place)?"""
    con = sqlite3.connect(path)
    have = tables(con)
    if mode == "pp_chart" and "StepTaskInfo" in have:
        return True
    if "COMMUNICATION_OP" not in have:
        return False
    cols = [r[1] for r in con.execute("PRAGMA table_info(COMMUNICATION_OP)")]
    if mode == "mstx2commop":
        return True  # msprof-analyze's own copy of a database it wrote into
    return "opConnectionId" in cols


def rank_dbs(job):
    for root, _, files in os.walk(job):
        if os.path.relpath(root, job).split(os.sep)[0] == OUT:
            continue
        for f in files:
            if f.endswith(".db") and f != "analysis.db" and "profiler" in f:
                yield os.path.relpath(os.path.join(root, f), job)


def compare_rank_dbs(mode, cs_out, ms_job, problems):
    copies = os.path.join(cs_out, OUT, RANK_DB_RECIPES[mode])
    checked = 0
    for rel in sorted(rank_dbs(ms_job)):
        ms, cs = os.path.join(ms_job, rel), os.path.join(copies, rel)
        if not written_by_msprof(ms, mode):
            if os.path.exists(cs):
                problems.append(rel + ": a copy from clusterscope, msprof-analyze left it alone")
            continue
        if not os.path.exists(cs):
            problems.append(rel + ": no copy from clusterscope")
            continue
        compare_lists(rel, rank_db_text(cs, mode), rank_db_text(ms, mode), problems)
        checked += 1
    if checked == 0:
        problems.append("no rank database written by msprof-analyze")


def compare_export_summary(cs_out, ms_out, problems):
    ms_root = os.path.join(ms_out, "job")
    cs_root = os.path.join(cs_out, OUT, "ExportSummary")
    want = set()
    for root, _, files in os.walk(ms_root):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), ms_root)
            # msprof-analyze: <rank dir>/ASCEND_PROFILER_OUTPUT/X.csv; clusterscope: <rank dir>/X.csv
            parts = rel.split(os.sep)
            want.add(os.path.join(parts[0], f))
            cs = os.path.join(cs_root, parts[0], f)
            if not os.path.exists(cs):
                problems.append(rel + ": not written by clusterscope")
            elif not filecmp.cmp(cs, os.path.join(root, f), shallow=False):
                problems.append(rel + ": differs")
    got = set()
    for root, _, files in os.walk(cs_root):
        for f in files:
            got.add(os.path.relpath(os.path.join(root, f), cs_root))
    for extra in sorted(got - want):
        problems.append(extra + ": written by clusterscope only")
    if not want:
        problems.append("no CSV written by msprof-analyze")


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    mode, cs_out, ms_out = sys.argv[1:4]
    ms_job = sys.argv[4] if len(sys.argv) > 4 else None
    problems = []
    if mode == "mstx2commop":
        compare_rank_dbs(mode, cs_out, os.path.join(ms_out, OUT, RANK_DB_RECIPES[mode]), problems)
    elif mode in RANK_DB_RECIPES:
        compare_rank_dbs(mode, cs_out, ms_job, problems)
    if mode == "export_summary":
        compare_export_summary(cs_out, ms_out, problems)
    n = compare_cluster_db(cs_out, ms_out, problems)
    if mode not in RANK_DB_RECIPES and mode != "export_summary" and n == 0 and not problems:
        problems.append("neither tool wrote a table")
    print("yes" if not problems else "no: " + "; ".join(problems[:3]) +
          ("; ... %d in all" % len(problems) if len(problems) > 3 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
