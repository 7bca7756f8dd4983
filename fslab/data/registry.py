"""Registered data sources (issue 36.3): a source fslab does not ship (a file format, a database, a service) reached
from the library (:func:`open_source`), the command line (DATA ``NAME:LOCATION``, or a file whose name ends in a
registered suffix) and the app's Data page (an upload whose name ends in a registered suffix), by one function.

A source is registered under a **scheme** (``"rows"``: DATA ``rows:path/to/file``) or a **suffix** (``".jsonl"``: any
file so named), in one of two ways:

- in the process: ``register_source("rows", open_rows)`` (a test, a notebook, a script that then calls
  :func:`fslab.cli.main.main`);
- by an installed package, an entry point of the group ``fslab.sources`` under the same name, e.g. in its
  ``pyproject.toml``::

      [project.entry-points."fslab.sources"]
      rows = "toy_rows_source:open_rows"
      ".jsonl" = "toy_rows_source:open_rows"

  An entry point is imported only when its name is asked for (``import fslab`` imports none). Data never bring
  code: a DATA spec or an upload only names a source already installed or registered.

The opener: ``opener(location, *, target=None, positive=None, method="auto", bins=3)`` returns a table source
(:class:`fslab.tables.TableSource` with ``n_rows``, ``task``, ``target`` and, for a binary target, ``class_names``).
``location`` is the text after ``NAME:`` or the file's path, or ``bytes`` (an upload's content, for a suffix).
``target=None``: the source's own default (the last column, as for a CSV). The opener is a module-level function:
the app runs it in the capped worker process that reads every upload. The app needs the codes in memory: a
source reaches its pages as an :class:`~fslab.data.encoded.EncodedDataset` or through its ``to_encoded()``; the app
offers a source by its suffix only (an upload's bytes), never by a location typed in a page, so no user of the app
names a path or a database of the server.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from ..errors import DataError, ParameterError
from .encoded import EncodedDataset

GROUP = "fslab.sources"   # the entry-point group of installed sources
RESERVED = ("sample", "preset")   # fslab's own DATA prefixes (sample:adult, preset:xor)
_SCHEME = re.compile(r"[a-z][a-z0-9_+.-]+")   # two characters at least: C:\data.csv stays a path
_SUFFIX = re.compile(r"\.[a-z0-9][a-z0-9_.-]*")
NEEDS = ("feature_names", "arities", "labels", "n_features", "n_rows", "task", "target", "table",
         "extension_tables")


class UnknownSourceError(ParameterError):
    """DATA names a source that is neither registered in this process nor installed (or names none)."""


@dataclass(frozen=True)
class SourceKind:
    """A registered source: its ``name`` (a scheme, or a suffix starting with "."), the ``opener`` (see the module
    docstring) and ``label``, the source in a few words (the opener's first docstring line by default)."""

    name: str
    opener: Callable[..., Any]
    label: str = ""

    @property
    def words(self) -> str:
        doc = (self.opener.__doc__ or "").strip().splitlines()
        return self.label or (doc[0].rstrip(".") if doc else self.name)


EXTRA: dict[str, SourceKind] = {}   # registered in this process, in registration order


def register_source(name: str, opener: Callable[..., Any], label: str = "") -> SourceKind:
    """Register ``opener`` under a scheme ("rows") or a file suffix (".jsonl"); refuses a taken, reserved or badly
    formed name (lower case; a scheme of two characters or more, so a Windows drive stays a path)."""
    name = str(name)
    if not (_SCHEME.fullmatch(name) or _SUFFIX.fullmatch(name)) or name in RESERVED:
        raise ParameterError(f"source name {name!r}: use a lower-case scheme of two characters or more (rows, "
                             f"warehouse) or a file suffix starting with '.' (.jsonl); not {', '.join(RESERVED)}")
    if name in EXTRA:
        raise ParameterError(f"source {name!r}: already registered; unregister_source it first")
    kind = SourceKind(name, _checked(name, opener), label)
    EXTRA[name] = kind
    return kind


def unregister_source(name: str) -> None:
    EXTRA.pop(name, None)


def _installed() -> dict[str, Any]:
    """The installed entry points by name (not imported), read once per import path: a scan of every installed
    package's metadata takes 3-20 ms, and the Data page asks on each rerun (a package installed into a running
    server's path is seen after a restart)."""
    return _installed_on(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _installed_on(path: tuple[str, ...]) -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> tuple[str, ...]:
    """Every source name: registered here, then installed."""
    return tuple(dict.fromkeys([*EXTRA, *_installed()]))


def kind(name: str) -> SourceKind:
    """The source registered as ``name`` here, else the installed one (its entry point imported now)."""
    if name in EXTRA:
        return EXTRA[name]
    ep = _installed().get(name)
    if ep is None:
        raise UnknownSourceError(f"no data source {name!r}: " + known())
    return SourceKind(name, _checked(f"{name} ({ep.value})", ep.load()))


def _checked(name: str, opener):
    """``opener`` when it can be called as every caller calls it, else a ParameterError saying how."""
    try:
        inspect.signature(opener).bind("location", target=None, positive=None, method="auto", bins=3)
    except (TypeError, ValueError):
        raise ParameterError(f"source {name!r}: the opener must be a function opener(location, *, target=None, "
                             "positive=None, method='auto', bins=3) (or take **options)") from None
    return opener


def known() -> str:
    """The registered and installed sources, in words, for an error message."""
    listed = names()
    return ((f"the sources are {', '.join(listed)}" if listed else "no source is registered or installed")
            + f"; a package adds one with an entry point in the group {GROUP!r}, a script with "
              "fslab.data.registry.register_source")


def scheme_of(data: str) -> str | None:
    """The ``NAME`` of ``NAME:LOCATION`` when ``data`` is so written (a URL's ``NAME://`` too), else None."""
    head, sep, _ = str(data).partition(":")
    return head if sep and _SCHEME.fullmatch(head) and head not in RESERVED else None


def find(data: str) -> tuple[SourceKind, str] | None:
    """(kind, location) when ``data`` names a registered or installed source, by its scheme or its file's suffix
    (the longest registered suffix wins); None otherwise (a plain file, a sample, ...)."""
    available = names()
    head = scheme_of(data)
    if head is not None and head in available:
        return kind(head), str(data)[len(head) + 1:]
    lower = Path(str(data)).name.lower()
    suffixes = sorted((n for n in available if n.startswith(".") and lower.endswith(n)), key=len, reverse=True)
    return (kind(suffixes[0]), str(data)) if suffixes else None


def open_source(data: str, target: str | None = None, positive: str | None = None, method: str = "auto",
                bins: int = 3):
    """The table source ``data`` names: ``NAME:LOCATION`` of a registered or installed source, or a file whose
    name ends in a registered suffix. An unknown name is an :class:`UnknownSourceError`; what the opener cannot
    read (a missing file, bad JSON) is a :class:`~fslab.errors.DataError` naming the source."""
    found = find(data)
    if found is None:
        head = scheme_of(data)
        raise UnknownSourceError((f"no data source {head!r} in {data!r}: " if head else
                                  f"{data!r} names no data source (NAME:LOCATION or a registered suffix): ") + known())
    return open_with(*found, target=target, positive=positive, method=method, bins=bins)


def open_with(kind: SourceKind, location: str | bytes, *, target=None, positive=None, method: str = "auto",
              bins: int = 3):
    """``kind``'s opener on ``location``, its failures to read said as DataError, its result checked."""
    if isinstance(location, str) and not location.strip():
        raise UnknownSourceError(f"the source {kind.name!r} needs a location after '{kind.name}:', e.g. "
                                 f"{kind.name}:path/to/data")
    shown = "the upload" if isinstance(location, bytes) else repr(location)
    try:
        source = kind.opener(location, target=target, positive=positive, method=method, bins=bins)
    except (OSError, ValueError, KeyError) as err:
        if isinstance(err, ParameterError | DataError):
            raise
        why = getattr(err, "strerror", None) or (str(err).splitlines() or [""])[0][:200]
        raise DataError(f"the source {kind.name!r} ({kind.words}) could not read {shown}: {why}") from None
    missing = [a for a in NEEDS if not hasattr(source, a)]
    if missing:
        raise ParameterError(f"the source {kind.name!r} returned a {type(source).__name__}, not a table source: it "
                             f"lacks {', '.join(missing)} (see fslab.data.registry)")
    return source


def as_encoded(source) -> EncodedDataset:
    """The source's codes in memory, what the app's pages take: the source itself or its ``to_encoded()``."""
    if isinstance(source, EncodedDataset):
        return source
    to_encoded = getattr(source, "to_encoded", None)
    if not callable(to_encoded):
        raise ParameterError(f"a {type(source).__name__} keeps its rows where they are: the app's pages need the "
                             "codes in memory (an EncodedDataset, or a source with to_encoded()); use the command "
                             "line or the library on it")
    return to_encoded()


def open_upload(name: str, opener: Callable[..., Any], data: bytes, target: str | None = None) -> EncodedDataset:
    """An upload's bytes opened by ``opener``, the source registered as ``name`` (passed itself: a worker process
    that never saw the registration runs it), as codes in memory (:func:`as_encoded`)."""
    return as_encoded(open_with(SourceKind(name, opener), data, target=target))
