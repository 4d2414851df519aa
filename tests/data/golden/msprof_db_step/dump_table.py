"""Prints one table of a SQLite database as text: its CREATE statement, then one line per row
(rowid order), cells separated by tabs as "int:N", "real:%.17g", "null" or "text:S".

usage: python3 dump_table.py DB TABLE > FILE
"""
import sqlite3
import sys

db, table = sys.argv[1], sys.argv[2]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
print(con.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()[0])
for row in con.execute('SELECT * FROM "%s" ORDER BY rowid' % table):
    cells = []
    for v in row:
        if v is None:
            cells.append("null")
        elif isinstance(v, int):
            cells.append("int:%d" % v)
        elif isinstance(v, float):
            cells.append("real:%.17g" % v)
        else:
            cells.append("text:" + v)
    print("\t".join(cells))
