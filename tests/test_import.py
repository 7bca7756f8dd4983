import subprocess
import sys


def test_import_fslab_does_not_import_streamlit():
    code = "import sys, fslab, fslab.plots; assert 'streamlit' not in sys.modules, 'fslab imported streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True)
