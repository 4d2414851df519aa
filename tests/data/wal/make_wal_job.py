#!/usr/bin/env python3
"""Builds tests/data/wal/db_level1_wal: the real DB export of ascend-real/db_level1 copied while a
writer still had its databases open in WAL mode, so that committed rows are in -wal files beside
them and not yet in the databases (as a copy taken during a run leaves them).

Usage: make_wal_job.py SOURCE_JOB OUT_DIR
  SOURCE_JOB: tests/data/ascend-real/db_level1;  OUT_DIR: tests/data/wal/db_level1_wal

For each rank, in both databases: journal_mode=WAL with automatic checkpoints off, then half of
the rows of COMMUNICATION_OP, TASK and CommAnalyzerTime changed (durations stretched), committed;
the files are copied while the connection is still open (the -wal is kept, the -shm left out, as
a copy tool skipping sockets and shared memory would), then the scratch copy is removed.
"""
import os
import shutil
import sqlite3
import sys
import tempfile


def wal_copy(db, out, changes):
    con = sqlite3.connect(db, isolation_level=None)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("BEGIN")
    for sql in changes:
        con.execute(sql)
    con.execute("COMMIT")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(db, out)
    shutil.copyfile(db + "-wal", out + "-wal")
    assert os.path.getsize(out + "-wal") > 0
    con.close()


def main(src, out):
    scratch = tempfile.mkdtemp()
    try:
        job = os.path.join(scratch, "job")
        shutil.copytree(src, job)
        for rank_dir in sorted(os.listdir(job)):
            base = os.path.join(job, rank_dir)
            for f in os.listdir(base):
                if f.endswith(".json"):
                    os.makedirs(os.path.join(out, rank_dir), exist_ok=True)
                    shutil.copyfile(os.path.join(base, f), os.path.join(out, rank_dir, f))
            prof = os.path.join(base, "ASCEND_PROFILER_OUTPUT")
            for f in sorted(os.listdir(prof)):
                if f.startswith("ascend_pytorch_profiler_"):
                    changes = [
                        "UPDATE COMMUNICATION_OP SET endNs = endNs + (endNs - startNs) "
                        "WHERE opId % 2 = 0",
                        "UPDATE TASK SET endNs = endNs + 3 * (endNs - startNs) "
                        "WHERE rowid % 2 = 0",
                    ]
                elif f == "analysis.db":
                    changes = [
                        "UPDATE CommAnalyzerTime SET elapse_time = elapse_time * 2, "
                        "transit_time = transit_time * 3, wait_time = wait_time + 1.5 "
                        "WHERE rowid % 2 = 0",
                    ]
                else:
                    continue
                wal_copy(os.path.join(prof, f),
                         os.path.join(out, rank_dir, "ASCEND_PROFILER_OUTPUT", f), changes)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
