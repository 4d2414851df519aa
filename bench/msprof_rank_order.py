"""Runs msprof-analyze's cluster_analysis.py with the rank directories listed in rank order.

msprof-analyze takes the ranks in the order os.walk lists the job's directories (ext4: the order
of the names' hashes), and that order decides its rows' order and, where pandas sums in it, the
last bits of some statistics (docs/msprof-compat.md, "Rank order"). On a file system that lists
directories in creation order (tmpfs, a job written rank by rank) it reads them in rank order, as
clusterscope does; the golden references are made that way. This wrapper gives msprof-analyze that
listing on any file system: every directory os.walk yields lists its subdirectories sorted by the
rank their profiler_info_<rank>.json names (directories without one after them, by name).
Nothing else changes: msprof-analyze and pandas run as installed.

usage: PYTHONPATH=<msprof-analyze> python3 msprof_rank_order.py <cluster_analysis.py> <its arguments>
"""
import os
import re
import runpy
import sys

_INFO = re.compile(r"^profiler_info_(\d+)\.json$")
_walk = os.walk


def _rank_key(root, name):
    try:
        for f in os.listdir(os.path.join(root, name)):
            m = _INFO.match(f)
            if m:
                return (0, int(m.group(1)), name)
    except OSError:
        pass
    return (1, 0, name)


def _walk_in_rank_order(top, *args, **kwargs):
    for root, dirs, files in _walk(top, *args, **kwargs):
        dirs.sort(key=lambda d: _rank_key(root, d))
        yield root, dirs, files


os.walk = _walk_in_rank_order
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
