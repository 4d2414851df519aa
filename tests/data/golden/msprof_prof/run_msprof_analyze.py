"""Runs msprof-analyze's cluster_analysis.py with the rank directories listed in name order.

msprof-analyze processes ranks in the order os.walk lists their directories (file-system order,
not reproducible); clusterscope writes ranks in ascending order (docs/msprof-compat.md "Rank
order"). The generated PROF_{6 digits}_... names sort in rank order, so listing them sorted gives
msprof-analyze's output for a file system that lists in rank order. Nothing else is changed.

usage: PYTHONPATH=MSPROF_ANALYZE_ROOT python3 run_msprof_analyze.py -d JOB -m all -o OUT
"""
import runpy
import sys

from msprof_analyze.prof_common.path_manager import PathManager

_walk = PathManager.limited_depth_walk.__func__


def _sorted_walk(cls, path, *args, **kwargs):
    for root, dirs, files in _walk(cls, path, *args, **kwargs):
        dirs.sort()
        yield root, dirs, files


PathManager.limited_depth_walk = classmethod(_sorted_walk)

if __name__ == "__main__":
    import msprof_analyze.cluster_analyse.cluster_analysis as ca
    sys.argv[0] = ca.__file__
    runpy.run_path(ca.__file__, run_name="__main__")
