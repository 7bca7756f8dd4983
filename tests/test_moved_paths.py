"""Issue 15.5: modules moved into fslab/data, fslab/npfs and fslab/pena_nilsson; the old paths still import."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from fslab._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_moved_module_itself(old):
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__name__ == MOVED[old] and module.__spec__.name == MOVED[old]  # the alias left its spec alone
    assert not (ROOT / (old.replace(".", "/") + ".py")).exists()  # a file of the old name would shadow the alias


def test_patching_through_an_old_path_patches_the_code_that_runs(monkeypatch):
    from fslab.data import samples

    monkeypatch.setattr("fslab.samples.SAMPLE_DIR", "patched")
    assert samples.SAMPLE_DIR == "patched"


def test_the_former_modules_data_and_npfs_keep_their_names():
    import fslab
    from fslab.data import dataset
    from fslab.npfs import Shared, _lean, procedure

    data, npfs = sys.modules["fslab.data"], sys.modules["fslab.npfs"]  # the attribute fslab.npfs is the function
    assert {name: getattr(data, name) for name in dataset.__all__} == {
        name: getattr(dataset, name) for name in dataset.__all__}
    assert {name: getattr(npfs, name) for name in procedure.__all__} == {
        name: getattr(procedure, name) for name in procedure.__all__}
    assert fslab.npfs is npfs.npfs is procedure.npfs and (Shared, _lean) == (procedure.Shared, procedure._lean)


def test_an_old_path_imports_first_in_a_fresh_interpreter():
    code = ("import fslab.orderings as o, fslab.npfs_result as r, sys; "
            "assert o.__name__ == 'fslab.pena_nilsson.orderings' and r.RULES; "
            "assert 'sklearn' not in sys.modules and 'streamlit' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
