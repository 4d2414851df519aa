# Dumps the given tables (CREATE statement, "== name", rows) of each rank database under a job,
# in the notation of tests/recipes/rank_copy_test_util.h dump_table, one file per rank.
import sqlite3, sys, os, glob
job, out, tables = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(out, exist_ok=True)
def f(v):
    if v is None: return "NULL"
    if isinstance(v, int): return "i:%d" % v
    if isinstance(v, float): return "r:%.17g" % v
    return "t:" + v
for p in glob.glob(job + "/**/ascend_pytorch_profiler_*.db", recursive=True):
    r = p.rsplit("_", 1)[1][:-3]
    c = sqlite3.connect(p)
    text = ""
    for t in tables:
        row = c.execute("select sql from sqlite_master where type='table' and name=?", (t,)).fetchone()
        if row is None:
            text += "(no table)\n"
            continue
        text += row[0] + "\n== " + t + "\n"
        for rr in c.execute('select * from "%s"' % t):
            text += "|".join(f(v) for v in rr) + "\n"
    open(os.path.join(out, "rank_%s.txt" % r), "w").write(text)
