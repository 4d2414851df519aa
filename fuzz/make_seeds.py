#!/usr/bin/env python3
"""Writes the fuzz seeds, tests/data/fuzz/<harness>/seed-*, from the real samples in tests/data.

Seeds are small: whole files where the real one is small, otherwise its first records (JSON
arrays cut to their first events and re-serialised, CSVs to their first lines, SQLite databases
copied with only the tables the reader uses and a few rows). Harnesses whose first byte picks a
variant (kernel_details, profiler_info, input_kind, megengine, memory) get that byte prepended. Crashers found by
scripts/fuzz.sh are added to the same folders by hand (crash-*, timeout-*), never by this script.
Run from the repository root: python3 fuzz/make_seeds.py
"""
import gzip
import json
import os
import shutil
import sqlite3

DATA = "tests/data"
OUT = os.path.join(DATA, "fuzz")
REAL = os.path.join(DATA, "ascend-real")
T1 = os.path.join(REAL, "text_level1", "rank0_ascend_pt")


def small_sqlite_db(page_size, wal, statements):
    """The bytes of a database SQLite writes with these statements."""
    path = os.path.join(OUT, ".seed.db")
    for p in (path, path + "-wal", path + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=%d" % page_size)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    for st in statements:
        db.execute(st)
    db.commit()
    db.close()
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    return data


def put(harness, name, data):
    os.makedirs(os.path.join(OUT, harness), exist_ok=True)
    with open(os.path.join(OUT, harness, "seed-" + name), "wb") as f:
        f.write(data)


def raw(path):
    with open(os.path.join(DATA, path), "rb") as f:
        return f.read()


def head_lines(path, n):
    return b"".join(raw(path).splitlines(keepends=True)[:n])


def cut_events(events, n):
    """Every metadata (M) event, then the first n others: names stay, the rest is sampled."""
    meta = [e for e in events if e.get("ph") == "M"]
    rest = [e for e in events if e.get("ph") != "M"][:n]
    return meta[:20] + rest


def main():
    # communication.json / communication_matrix.json: whole small real files.
    put("communication", "sample_split.json", raw("golden/msprof/sample_split/rank0/communication.json"))
    put("communication", "text_level1.json", raw(os.path.relpath(T1, DATA) + "/ASCEND_PROFILER_OUTPUT/communication.json"))
    put("communication_matrix", "comm.json", raw("comm/communication_matrix.json"))
    put("communication_matrix", "set_order.json", raw("golden/msprof/set_order/rank15/communication_matrix.json"))
    put("communication_matrix", "text_level1.json", raw(os.path.relpath(T1, DATA) + "/ASCEND_PROFILER_OUTPUT/communication_matrix.json"))
    # step_trace_time.csv: real files and the malformed ones the CSV tests use.
    put("step_trace", "step_trace.csv", raw("step_trace/step_trace_time.csv"))
    put("step_trace", "text_level1.csv", raw(os.path.relpath(T1, DATA) + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"))
    put("step_trace", "stages8.csv", raw("golden/msprof/stages8/rank0/step_trace_time.csv"))
    for m in ("csv_bom", "csv_quirks", "csv_truncated_mid_quote", "csv_crlf"):
        put("step_trace", m + ".csv", raw("malformed/%s.csv" % m))
    # kernel_details.csv (first byte 0) and op_statistic.csv (first byte 1).
    put("kernel_details", "small.csv", b"\0" + raw("ascend/kernel_details_small.csv"))
    put("kernel_details", "a2.csv", b"\0" + head_lines("ascend/kernel_details.csv", 12))
    put("kernel_details", "text_level1.csv", b"\0" + head_lines(os.path.relpath(T1, DATA) + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", 16))
    put("kernel_details", "op_statistic.csv", b"\1" + b"OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\r\nMatMulV2,AI_CORE,12,1200.5,90.1,100.04,120.3,55.2\r\nCast,AI_VECTOR_CORE,4,N/A,1,2,3,4\r\n")
    # profiler_info_N.json (first byte 0) and profiler_metadata.json (first byte 1).
    put("profiler_info", "info7.json", b"\0" + raw("comm/mismatch/profiler_info_7.json"))
    put("profiler_info", "info_ms.json", b"\0" + raw("comm/mindspore/profiler_info_12.json"))
    put("profiler_info", "info_clean.json", b"\0" + raw("diagnosis/clean32/node0_4000_20261121000000_ascend_pt/profiler_info_0.json"))
    put("profiler_info", "metadata_tp2pp2.json", b"\1" + raw("golden/msprof/tp2pp2/rank0/profiler_metadata.json"))
    put("profiler_info", "metadata_t1.json", b"\1" + raw("text_level1/rank0_ascend_pt/profiler_metadata.json"))
    # Kineto: the small real trace as gzip and as text; an array-form and a GPU trace, cut.
    put("kineto_trace", "hta_base.json.gz", raw("kineto-variants/hta_compare_base.json.gz"))
    base = json.load(gzip.open(os.path.join(DATA, "kineto-variants/hta_compare_test.json.gz")))
    put("kineto_trace", "hta_test.json", json.dumps(base).encode())
    arr = json.load(gzip.open(os.path.join(DATA, "kineto-variants/array_format_resnet50_worker0.pt.trace.json.gz")))
    put("kineto_trace", "array_form.json", json.dumps(cut_events(arr, 40)).encode())
    gpu = json.load(gzip.open(os.path.join(DATA, "kineto/sampled_rank-0.json.gz")))
    gpu["traceEvents"] = cut_events(gpu["traceEvents"], 60)
    put("kineto_trace", "sampled_rank0.json", json.dumps(gpu).encode())
    # trace_view.json: the two real ones, cut.
    with open(os.path.join(DATA, "ascend/trace_view.json")) as f:
        tv = json.load(f)
    put("trace_view", "a2.json", json.dumps(cut_events(tv, 60)).encode())
    tv1 = json.load(gzip.open(os.path.join(T1, "ASCEND_PROFILER_OUTPUT/trace_view.json.gz")))
    hccl = [e for e in tv1 if "hcom" in str(e.get("name", "")) or "HCCL" in str(e.get("args", ""))][:6]
    put("trace_view", "text_level1.json", json.dumps(cut_events(tv1, 20) + hccl).encode())
    # analysis.db: whole real files (8 and 28 KB).
    put("analysis_db", "level0.db", raw("ascend-real/db_level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"))
    put("analysis_db", "level1.db", raw("ascend-real/db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"))
    # ascend_pytorch_profiler_0.db: the tables the reader uses, a few rows each.
    put("profiler_db", "level1.db", small_profiler_db(os.path.join(REAL, "db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db")))
    # input_kind: the first byte picks the name (fuzz/input_kind.cpp); heads of real files.
    put("input_kind", "kineto.json", b"\0" + json.dumps(base).encode()[:4096])
    put("input_kind", "array.json.gz", b"\1" + raw("kineto-variants/hta_compare_base.json.gz"))
    put("input_kind", "trace_view.json", b"\2" + json.dumps(cut_events(tv, 10)).encode())
    put("input_kind", "kernel_details.csv", b"\3" + raw("ascend/kernel_details_small.csv"))
    put("input_kind", "analysis.db", b"\4" + raw("ascend-real/db_level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"))
    # MegEngine: static-graph profile (first byte 0), chrome_timeline.json (first byte 1).
    put("megengine", "static.json", b"0" + raw("megengine/static_graph.profile.json"))
    put("megengine", "timeline.json", b"1" + raw("megengine/dynamic.chrome_timeline.json"))
    put("megengine", "copy.json", b"2" + raw("megengine/copy_graph.profile.json"))
    put("megengine", "cupti.json", b"1" + raw("megengine/cupti.chrome_timeline.json"))
    memory_seeds()
    # io/sqlite's appender: small databases SQLite wrote (512-byte pages: a schema page nearly
    # full, a table with an index; one table in WAL mode, which it leaves to SQLite).
    put("sqlite_appender", "two_tables.db", small_sqlite_db(512, False, [
        "CREATE TABLE \"A\" (\n\"x\" TEXT,\n  \"y\" REAL\n)", "CREATE INDEX ix_A_x ON A (x)",
        "INSERT INTO A VALUES ('one', 1.5), ('two', NULL), (NULL, 3)",
        "CREATE TABLE B (z INTEGER)", "INSERT INTO B VALUES (7)"]))
    put("sqlite_appender", "wal.db", small_sqlite_db(512, True, ["CREATE TABLE C (c)"]))


def small_profiler_db(path):
    tmp = os.path.join(OUT, "tmp-profiler.db")
    shutil.copy(path, tmp)
    c = sqlite3.connect(tmp)
    keep = {"COMPUTE_TASK_INFO", "TASK", "STEP_TIME", "META_DATA", "RANK_DEVICE_MAP", "STRING_IDS"}
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
        if t not in keep and not t.startswith("sqlite_"):
            c.execute('DROP TABLE "%s"' % t)
    ids = [r[0] for r in c.execute("SELECT globalTaskId FROM COMPUTE_TASK_INFO ORDER BY globalTaskId LIMIT 12")]
    q = ",".join(str(i) for i in ids)
    c.execute("DELETE FROM COMPUTE_TASK_INFO WHERE globalTaskId NOT IN (%s)" % q)
    c.execute("DELETE FROM TASK WHERE globalTaskId NOT IN (%s)" % q)
    used = set()
    for row in c.execute("SELECT * FROM COMPUTE_TASK_INFO"):
        used.update(v for v in row if isinstance(v, int))
    c.execute("DELETE FROM STRING_IDS WHERE id NOT IN (%s)" % ",".join(str(i) for i in sorted(used)))
    c.commit()
    c.execute("VACUUM")
    c.close()
    with open(tmp, "rb") as f:
        data = f.read()
    os.remove(tmp)
    return data


def head_lines(path, n):
    """The first n lines of a file in tests/data, as bytes."""
    with open(os.path.join(DATA, path), "rb") as f:
        return b"".join(f.readlines()[:n])


def memory_seeds():
    """memory: first byte even, then memory_record / operator_memory / npu_module_mem /
    static_op_mem separated by two NUL bytes; odd, then a profiler database."""
    t1 = "memory/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
    put("memory", "text_level1.csv", b"\0" + b"\0\0".join([
        head_lines(t1 + "memory_record.csv", 40), head_lines(t1 + "operator_memory.csv", 30),
        head_lines(t1 + "npu_module_mem.csv", 20), b""]))
    cann = "memory/cann_text/"
    put("memory", "cann_text.csv", b"\0" + b"\0\0".join([
        raw(cann + "memory_record_20250101000000.csv"),
        raw(cann + "operator_memory_20250101000000.csv"),
        raw(cann + "npu_module_mem_20250101000000.csv"),
        raw("memory/static_graph/static_op_mem.csv")]))
    put("memory", "msprof_npu_op_mem.db", b"\1" + raw("memory/msprof_db/msprof_20250101000000.db"))


if __name__ == "__main__":
    main()
