import subprocess
import sys

import pytest


@pytest.mark.slow  # 1.14 s measured (inner loop: unit and not slow)
def test_import_fslab_does_not_import_streamlit():
    code = "import sys, fslab, fslab.plots; assert 'streamlit' not in sys.modules, 'fslab imported streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow  # 2.60 s measured (inner loop: unit and not slow)
def test_scikit_learn_is_imported_only_when_used():
    """`import fslab` stays quick (the app's first paint): the learners come with FeatureSelector, fbs / fos."""
    code = ("import sys, fslab\n"
            "assert 'sklearn' not in sys.modules, sorted(m for m in sys.modules if m.startswith('sklearn'))[:3]\n"
            "from fslab import *\n"
            "assert FeatureSelector.__module__ == 'fslab.evaluate' and callable(fbs) and callable(fos) and INDUCERS\n"
            "assert set(fslab.__all__) <= set(dir(fslab))\n"
            "try:\n    fslab.no_such_name\nexcept AttributeError as err:\n    assert 'no_such_name' in str(err)\n"
            "else:\n    raise SystemExit('no AttributeError')\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow  # 1.20 s measured (inner loop: unit and not slow)
def test_scipy_stats_is_imported_only_when_used():
    """scipy.stats takes about 0.35 s to import, a third of `import fslab` (paid on the app's cold first paint):
    the binomial test, Nogueira's interval and Kendall's tau import it when they run."""
    code = ("import sys, fslab, fslab.npfs, fslab.compare\n"
            "assert 'scipy.stats' not in sys.modules\n"
            "from fslab.npfs.result import npfs_threshold\n"
            "assert npfs_threshold(100, 0.1, 0.01) > 10 and 'scipy.stats' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
