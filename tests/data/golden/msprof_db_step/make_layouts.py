"""Copies a generated torch_npu DB job into MindSpore's and CANN msprof's DB layouts, as the test
ClusterDbWholeRun does (tests/cli/test_cluster_db_whole_run.cpp):
- MindSpore: *_ascend_pt -> *_ascend_ms, analysis.db -> communication_analyzer.db,
  ascend_pytorch_profiler_N.db -> ascend_mindspore_profiler_N.db (profiler_metadata.json kept);
- msprof: PROF_00000N_2024010100000000N_ABCDEF/ with msprof_20240101000000.db,
  analyze/communication_analyzer.db and device_N/info.json.N (no profiler_metadata.json).

usage: python3 make_layouts.py GENERATED_JOB MS_OUT PROF_OUT
"""
import os
import shutil
import sys

src, ms, prof = sys.argv[1:4]
os.makedirs(ms)
os.makedirs(prof)
for d in sorted(os.listdir(src)):
    p = os.path.join(src, d)
    if not os.path.isdir(p):
        continue
    name = d[:-3] + "_ms"
    shutil.copytree(p, os.path.join(ms, name))
    out = os.path.join(ms, name, "ASCEND_PROFILER_OUTPUT")
    os.rename(os.path.join(out, "analysis.db"), os.path.join(out, "communication_analyzer.db"))
    rank = None
    for f in os.listdir(out):
        if f.startswith("ascend_pytorch_profiler_"):
            rank = f[24:-3]
            os.rename(os.path.join(out, f), os.path.join(out, "ascend_mindspore_profiler_" + f[24:]))
    pp = os.path.join(prof, "PROF_00000%s_2024010100000000%s_ABCDEF" % (rank, rank))
    os.makedirs(os.path.join(pp, "analyze"))
    shutil.copy(os.path.join(out, "communication_analyzer.db"), os.path.join(pp, "analyze"))
    shutil.copy(os.path.join(out, "ascend_mindspore_profiler_%s.db" % rank),
                os.path.join(pp, "msprof_20240101000000.db"))
    os.makedirs(os.path.join(pp, "device_" + rank))
    with open(os.path.join(pp, "device_" + rank, "info.json." + rank), "w") as f:
        f.write('{"hostUid": "17", "rank_id": %s}' % rank)
