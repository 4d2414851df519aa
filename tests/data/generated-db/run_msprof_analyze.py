"""Runs msprof-analyze's cluster_analysis.py under Debian's pandas 1.5 with one pandas 2.2 keyword
it needs for MindSpore and CANN msprof databases: DataFrameGroupBy.apply(func,
include_groups=False) hands `func` each group WITHOUT its key columns (pandas 2.2 semantics);
pandas 1.5 has no such keyword. Everything else is msprof-analyze and pandas as installed.

usage: PYTHONPATH=<msprof-analyze> python3 run_msprof_analyze.py <cluster_analysis.py arguments>
"""
import runpy
import sys

from pandas.core.groupby.generic import DataFrameGroupBy

_apply = DataFrameGroupBy.apply


def _apply_without_keys(self, func, *args, include_groups=True, **kwargs):
    if include_groups:
        return _apply(self, func, *args, **kwargs)
    keys = self.keys if isinstance(self.keys, list) else [self.keys]
    return _apply(self, lambda g: func(g.drop(columns=[k for k in keys if k in g.columns])),
                  *args, **kwargs)


DataFrameGroupBy.apply = _apply_without_keys
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
