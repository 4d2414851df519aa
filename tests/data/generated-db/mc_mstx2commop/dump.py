# The canonical text of mstx2commop's output database (tests/recipes/test_mstx2commop.cpp runs the
# same queries): COMMUNICATION_OP's schema and index, its rows in table order with every id
# resolved to its text, and every STRING_IDS text sorted. msprof-analyze numbers opId and the new
# STRING_IDS entries in the iteration order of Python sets of strings (which changes with the
# hash seed), so the ids themselves are compared only as "0..n-1" / "unique".
import sqlite3, sys, os, glob
QUERIES = [
    "SELECT sql FROM sqlite_master WHERE tbl_name = 'COMMUNICATION_OP' ORDER BY type DESC, name",
    "SELECT count(DISTINCT opId) = count(*), min(opId), max(opId) + 1 = count(*) FROM COMMUNICATION_OP",
    "SELECT n.value, c.startNs, c.endNs, c.connectionId, g.value, c.relay, c.retry, c.dataType, "
    "c.algType, c.count, t.value FROM COMMUNICATION_OP c LEFT JOIN STRING_IDS n ON n.id = c.opName "
    "LEFT JOIN STRING_IDS g ON g.id = c.groupName LEFT JOIN STRING_IDS t ON t.id = c.opType "
    "ORDER BY c.rowid",
    "SELECT count(DISTINCT id) = count(*) FROM STRING_IDS",
    "SELECT value FROM STRING_IDS ORDER BY value",
]
def f(v):
    if v is None: return "NULL"
    if isinstance(v, int): return "i:%d" % v
    if isinstance(v, float): return "r:%.17g" % v
    return "t:" + v
job, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for p in glob.glob(job + "/**/ascend_pytorch_profiler_*.db", recursive=True):
    r = p.rsplit("_", 1)[1][:-3]
    c = sqlite3.connect(p)
    text = ""
    for q in QUERIES:
        for row in c.execute(q):
            text += "|".join(f(v) for v in row) + "\n"
    open(os.path.join(out, "rank_%s.txt" % r), "w").write(text)
