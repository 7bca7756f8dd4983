"""What ``import fslab`` loads, in one fresh interpreter (each check needs a process that has imported nothing yet;
one process serves all three: each assertion runs before the import that would load the module it guards)."""

import subprocess
import sys

import pytest

CODE = """\
import sys, fslab
assert 'sklearn' not in sys.modules, sorted(m for m in sys.modules if m.startswith('sklearn'))[:3]
import fslab.plots, fslab.npfs, fslab.compare, fslab.data.distributed, fslab.cli.main
assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')], 'dask imported before use'
assert 'streamlit' not in sys.modules, 'fslab imported streamlit'
assert 'scipy.stats' not in sys.modules, 'scipy.stats imported before use'
from fslab.npfs.result import npfs_threshold
assert npfs_threshold(100, 0.1, 0.01) > 10 and 'scipy.stats' in sys.modules
assert 'sklearn' not in sys.modules, 'the binomial bound imported scikit-learn'
from fslab import *
assert FeatureSelector.__module__ == 'fslab.evaluate' and callable(fbs) and callable(fos) and INDUCERS
assert set(fslab.__all__) <= set(dir(fslab))
try:
    fslab.no_such_name
except AttributeError as err:
    assert 'no_such_name' in str(err)
else:
    raise SystemExit('no AttributeError')
assert 'streamlit' not in sys.modules, 'the public names imported streamlit'
"""


@pytest.mark.slow  # one fresh interpreter: ~1.5 s of CPU
def test_import_fslab_loads_neither_streamlit_nor_dask_nor_scikit_learn_nor_scipy_stats_until_used():
    """`import fslab` stays quick (the app's first paint) and never imports streamlit; neither it nor its command
    line nor its Dask module imports dask; the learners come with FeatureSelector, fbs / fos; scipy.stats (about
    0.35 s, a third of `import fslab`) with the binomial test, Nogueira's interval and Kendall's tau, when they run."""
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
