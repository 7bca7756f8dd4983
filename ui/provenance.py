"""Provenance of an export: the session's data (name, hash, target, positive class, binning) plus the settings."""

from __future__ import annotations

from fslab import export
from fslab.data.samples import SAMPLES

from . import state
from .compare import token


def record(kind: str, source_name: str, source, measure: str | None = None, params: dict | None = None,
           **more) -> dict:
    """:func:`fslab.export.provenance` of the current dataset or toy distribution and the page's settings."""
    spec = (state.get_dataset_spec() or {}) if kind == "dataset" else {}
    if "sha256" in spec:
        data_hash = f"sha256:{spec['sha256']}"
    else:
        data_hash = f"blake2b-128:{token(source)}"  # a digest of the coded data (codes, labels, names)
    sample = spec.get("sample")
    target = spec.get("target") or (SAMPLES[sample].target if sample in SAMPLES else getattr(source, "target", None))
    classes = tuple(getattr(source, "class_names", ()) or ())
    positive = spec.get("positive") or (classes[-1] if len(classes) == 2 else None)
    binning = None
    if kind == "dataset":
        binning = f"{spec.get('method', 'mean-std')}" + (f", {spec['bins']} bins" if "bins" in spec else "")
    return export.provenance(source_name, data_hash, target, positive, binning,
                             measure, params, source=("exact distribution" if kind == "distribution" else
                                                      "uploaded file" if "file" in spec else
                                                      "shipped sample" if "sample" in spec else "generated sample"),
                             **more)
