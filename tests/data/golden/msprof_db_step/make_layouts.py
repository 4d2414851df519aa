"""Copies a generated torch_npu DB job into MindSpore's and CANN msprof's DB layouts, as the test
ClusterDbWholeRun does (tests/cli/test_cluster_db_whole_run.cpp):
- MindSpore: *_ascend_pt -> *_ascend_ms, analysis.db -> communication_analyzer.db,
  ascend_pytorch_profiler_N.db -> ascend_mindspore_profiler_N.db (profiler_metadata.json kept);
- msprof: PROF_{N as 6 digits}_{timestamp}_ABCDEF/ with msprof_20240101000000.db,
  analyze/communication_analyzer.db and device_{N % 8}/info.json.{N % 8} naming rank N
  (no profiler_metadata.json).

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
    pp = os.path.join(prof, "PROF_%06d_%017d_ABCDEF" % (int(rank), 20240101000000000 + int(rank)))
    os.makedirs(os.path.join(pp, "analyze"))
    shutil.copy(os.path.join(out, "communication_analyzer.db"), os.path.join(pp, "analyze"))
    shutil.copy(os.path.join(out, "ascend_mindspore_profiler_%s.db" % rank),
                os.path.join(pp, "msprof_20240101000000.db"))
    device = str(int(rank) % 8)  # 8 devices a host
    os.makedirs(os.path.join(pp, "device_" + device))
    with open(os.path.join(pp, "device_" + device, "info.json." + device), "w") as f:
        f.write('{"hostUid": "17", "rank_id": %s}' % rank)
