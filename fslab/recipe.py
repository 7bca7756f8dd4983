"""Recipes: a run of one page (data, toy distribution, widget choices) as JSON or as a URL query string.

A recipe names where the data comes from instead of carrying it: a shipped sample (with target, positive
class and discretisation), an uploaded file (name and SHA-256: the user uploads the same file again and the
hash is checked) or rows sampled from the toy distribution (m, seed). Everything a user hands over is parsed
(through :func:`fslab.data.safe_json.loads`) and checked against the registries and numeric ranges, never evaluated;
anything wrong raises :class:`RecipeError` with a message that says what to fix.

Positive class: ``None`` means the default (a sample's own positive class, else fslab's default) and
:data:`ALL_CLASSES` keeps every class of a multiclass target.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .data.column_types import TYPES as COLUMN_TYPES
from .data.csv_io import read_table
from .data.dataset import MISSING_RULES, Dataset
from .data.discretize import MAX_BINS, MEMORY_METHODS
from .data.distributions import Distribution
from .data.encoded import EncodedDataset
from .data.safe_json import loads
from .data.samples import SAMPLES, load_sample
from .data.target import parse_split
from .errors import DataError, FslabError
from .limits import DESCRIPTIONS, Limits, limits_or_server, server_limits, setting
from .measures import ESTIMATES, MEASURES, PARAMETERS, SCORABLE, Param
from .npfs.result import RULES
from .pena_nilsson.toy import PRESETS, preset
from .selectors import SELECTORS

RECIPE_VERSION = 1
ALL_CLASSES = "(all classes)"
MAX_SEED = 2**32 - 1
ALPHAS = (0.001, 0.005, 0.01, 0.05, 0.1)
CUSTOM_DIST = "custom"  # dist= of a link made on a toy distribution a URL cannot carry: the receiver is told
# the tabs a link may name: the format's vocabulary of tab= (the pages draw st.tabs(..., key="<page>.tab") with them)
TABS = {"orderings": ("Hasse diagram", "Theorem 1", "Minimal S* (BS, OS)", "Sample (FBS, FOS)"),
        "compare": ("Side by side", "Learning curves", "Binning sensitivity")}


class RecipeError(DataError):
    """A recipe or a share link that cannot be used as given; the message says what to fix."""


# --- value checks: each takes (name, value) and returns the checked value or raises RecipeError -----------

def _kind(kind: str) -> Callable:
    """Mark a check with the type a URL parameter is parsed as."""
    def mark(check: Callable) -> Callable:
        check.kind = kind  # type: ignore[attr-defined]  # a function attribute: read by _parse
        return check
    return mark


def _int(low: int, high: int | str) -> Callable:
    """A whole number in low .. high; ``high`` names a server limit (``"max_bootstraps"``) read at each check."""
    @_kind("number")
    def check(name: str, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecipeError(f"'{name}' must be a whole number; got {value!r}")
        top = getattr(server_limits(), high) if isinstance(high, str) else high
        if not low <= value <= top:
            why = (f" ({DESCRIPTIONS[high][0]} limit of this server: {setting(high)})"
                   if isinstance(high, str) and value > top else "")
            raise RecipeError(f"'{name}' must be between {low} and {top}; got {value}{why}")
        return value
    return check


def _float(low: float, high: float) -> Callable:
    @_kind("number")
    def check(name: str, value):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise RecipeError(f"'{name}' must be a finite number; got {value!r}")
        if not low <= value <= high:
            raise RecipeError(f"'{name}' must be between {low} and {high}; got {value}")
        return float(value)
    return check


def _one_of(options) -> Callable:
    options = tuple(options)

    @_kind("number" if all(isinstance(o, int | float) for o in options) else "text")
    def check(name: str, value):
        if isinstance(value, bool) or value not in options:
            raise RecipeError(f"'{name}' must be one of: {', '.join(map(str, options))}; got {value!r}")
        return value
    return check


@_kind("bool")
def _bool(name: str, value):
    if not isinstance(value, bool):
        raise RecipeError(f"'{name}' must be true or false; got {value!r}")
    return value


def _list_of(options) -> Callable:
    item = _one_of(options)

    @_kind("list")
    def check(name: str, value):
        if not isinstance(value, list) or not value:
            raise RecipeError(f"'{name}' must be a non-empty list; got {value!r}")
        return list(dict.fromkeys(item(name, v) for v in value))  # checked first: a nested list is not hashable
    return check


@_kind("text")
def _text(name: str, value):
    if not isinstance(value, str) or not value or len(value) > 1000:
        raise RecipeError(f"'{name}' must be a non-empty text of at most 1000 characters; got {value!r}")
    return value


@_kind("list")
def _names(name: str, value):
    """A list of column names (the Data page's columns left out): each a non-empty text, no repeats."""
    max_columns = server_limits().max_columns
    if (not isinstance(value, list) or len(value) > max_columns
            or not all(isinstance(v, str) and 0 < len(v) <= 1000 for v in value)):
        raise RecipeError(f"'{name}' must be a list of at most {max_columns:,} column names; got {value!r}")
    return list(dict.fromkeys(value))


def _param(param: Param) -> Callable:
    """The check of a measure parameter: the range or the choices its measure record offers."""
    if param.choices:
        return _one_of(param.choices)
    assert param.low is not None and param.high is not None  # a parameter without choices has a range
    return _float(param.low, param.high)


MAX_COST_CLASSES = 100   # rows of a cost matrix a recipe or link may carry
MATRIX_PARAMS = ("c",)   # parameters that may be a K x K matrix: cost-sensitive's c (fslab.measures.cost_sensitive)


def _cost_entry(v) -> bool:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    try:
        return math.isfinite(float(v)) and v >= 0
    except OverflowError:  # an integer too large for a float
        return False


def _cost(param: Param) -> Callable:
    """The check of cost-sensitive's c: a number in its record's range, or a K x K cost matrix C[y][k] (row y = the
    true class, column k = the prediction; 2 <= K <= MAX_COST_CLASSES; finite, non-negative), kept as floats."""
    number = _param(param)

    @_kind("cost")
    def check(name: str, value):
        if not isinstance(value, list):
            return number(name, value)
        K = len(value)
        if (not 2 <= K <= MAX_COST_CLASSES or not all(isinstance(row, list) and len(row) == K for row in value)
                or not all(_cost_entry(v) for row in value for v in row)):
            raise RecipeError(f"'{name}' must be a number between {param.low} and {param.high}, or a K x K cost "
                              f"matrix: 2 to {MAX_COST_CLASSES} rows of K finite, non-negative numbers (row y = the "
                              f"true class, column k = the prediction); got {value!r:.200}")
        return [[float(v) for v in row] for row in value]
    return check


_SOURCE = _one_of(("dataset", "distribution"))
_K = _int(1, "max_columns")


def _measure_params(measures=None) -> dict[str, Callable]:
    """The checks of the parameters of ``measures`` (None: every measure), from their records' ranges or choices."""
    return {name: _cost(param) if name in MATRIX_PARAMS else _param(param)
            for name, (param, takers) in PARAMETERS.items()
            if measures is None or set(takers) & set(measures)}


def _select_choices() -> dict[str, Callable]:
    return {"source": _SOURCE, "selector": _one_of(SELECTORS), "measure": _one_of(MEASURES), "k": _K,
            "use_s": _bool, "s": _int(1, 6), "estimate": _one_of(ESTIMATES), **_measure_params()}


def _npfs_choices() -> dict[str, Callable]:
    return {"selector": _one_of(SELECTORS), "measure": _one_of(MEASURES), "k": _K, "n": _int(2, "max_bootstraps"),
            "alpha": _one_of(ALPHAS), "seed": _int(0, 2**31 - 1), "fraction": _float(0.1, 1.0),
            "rule": _one_of(RULES), "estimate": _one_of(ESTIMATES), **_measure_params()}


def _compare_choices() -> dict[str, Callable]:
    # Compare's learning curves score a test sample, so only the measures with a test-sample scorer
    return {"source": _SOURCE, "measure": _one_of(SCORABLE), "k": _int(1, COMPARE_MAX_K),
            "selectors": _list_of(SELECTORS), **_measure_params(SCORABLE), "tab": _one_of(TABS["compare"]),
            "estimate": _one_of(ESTIMATES), "bin_selector": _one_of(SELECTORS)}


def _by_measure_choices() -> dict[str, Callable]:
    return {"source": _SOURCE, "selector": _one_of(SELECTORS), "k": _K, "measures": _list_of(MEASURES),
            **_measure_params(), "estimate": _one_of(ESTIMATES)}


COMPARE_MAX_K = 15   # Compare's k: its step grid and learning curves stay readable (ui.link_pages refers to it)
# The pages a recipe or link can open and the checks of their widget values by short name, built on each call from
# the registries (a registered selector or measure is accepted at once). The app's side of each page (widget-key
# prefix, bounds on the data at hand, selectors offered) is ui.link_pages.LINK_PAGES.
PAGE_CHOICES: Mapping[str, Callable[[], dict[str, Callable]]] = MappingProxyType({
    "select": _select_choices,
    "by_measure": _by_measure_choices,
    "npfs": _npfs_choices,
    "compare": _compare_choices,
    "orderings": lambda: {"source": _SOURCE, "measure": _one_of(MEASURES), "tab": _one_of(TABS["orderings"])},
    "scores": lambda: {"source": _SOURCE, "measures": _list_of(MEASURES), "ticked": _names},
    "toy": lambda: {"pick_k": _K, "conv_measure": _one_of(MEASURES), "conv_k": _K},
})
PAGES = tuple(PAGE_CHOICES)


class _Choices(Mapping):
    """page -> its choices' checks (:data:`PAGE_CHOICES`), built when read."""

    def __getitem__(self, page: str) -> dict[str, Callable]:
        return PAGE_CHOICES[page]()

    def __iter__(self):
        return iter(PAGE_CHOICES)

    def __len__(self) -> int:
        return len(PAGE_CHOICES)


CHOICES: Mapping[str, Mapping[str, Callable]] = _Choices()


@_kind("list")
def _types(name: str, value):
    """Column types the Data page was told ("column=type" texts, fslab.data.column_types.TYPES), no repeats."""
    if not isinstance(value, list) or len(value) > server_limits().max_columns:
        raise RecipeError(f"'{name}' must be a list of column=type texts; got {value!r}")
    out = {}
    for item in value:
        column, sep, kind = item.rpartition("=") if isinstance(item, str) else ("", "", "")
        if not sep or not column or len(column) > 1000 or kind not in COLUMN_TYPES:
            raise RecipeError(f"'{name}' must hold column=type texts with a type among {', '.join(COLUMN_TYPES)}; "
                              f"got {item!r}")
        out[column] = kind
    return [f"{c}={t}" for c, t in out.items()]


@_kind("text")
def _split(name: str, value):
    """A numeric target's split as the Data page writes it: "median", a threshold ("12.5") or "q2".."q5"."""
    if not isinstance(value, str) or len(value) > 100:
        raise RecipeError(f"'{name}' must be 'median', a number or q2..q5; got {value!r}")
    try:
        parse_split(value)
    except FslabError as err:
        raise RecipeError(f"'{name}': {err}") from None
    return value.strip().lower()


DATA_FIELDS = {"target": _text, "positive": _text, "method": _one_of(MEMORY_METHODS), "bins": _int(2, MAX_BINS),
               "exclude": _names, "types": _types, "missing": _one_of(MISSING_RULES), "dayfirst": _bool,
               "constant": _one_of(("drop", "keep")),
               "target_split": _split}  # Dataset.from_frame's rules, passed on replay
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _check_page(page) -> str:
    if page not in PAGES:
        raise RecipeError(f"unknown page {page!r}; a recipe is for one of: {', '.join(PAGES)}")
    return page


def _check_keys(what: str, got: Mapping, allowed) -> None:
    unknown = [str(k) for k in got if k not in allowed]
    if unknown:
        raise RecipeError(f"unknown {what} {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")


def check_choices(page: str, choices) -> dict:
    """The choices of ``page`` checked name by name against :data:`CHOICES`."""
    if not isinstance(choices, dict):
        raise RecipeError(f"'choices' must be an object of widget values; got {type(choices).__name__}")
    schema = CHOICES[_check_page(page)]
    _check_keys(f"choice for the {page} page", choices, schema)
    return {name: schema[name](name, value) for name, value in choices.items()}


def check_data(data) -> dict | None:
    """A data descriptor (sample / file / toy_sample, see the module docstring) checked field by field."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise RecipeError(f"'data' must be an object or null; got {type(data).__name__}")
    if "toy_sample" in data:
        _check_keys("data field", data, ("toy_sample",))
        spec = data["toy_sample"]
        if not isinstance(spec, dict) or set(spec) != {"m", "seed"}:
            raise RecipeError("'toy_sample' must be an object with exactly 'm' (rows) and 'seed'")
        return {"toy_sample": {"m": _int(1, "max_rows")("m", spec["m"]),
                               "seed": _int(0, MAX_SEED)("seed", spec["seed"])}}
    if "sample" in data:
        head = {"sample": _one_of(SAMPLES)("sample", data["sample"])}
    elif "file" in data:
        sha = data.get("sha256")
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            raise RecipeError("an uploaded file needs 'sha256': its 64 lowercase hex digits")
        head = {"file": _text("file", data["file"]), "sha256": sha}
    else:
        raise RecipeError("'data' needs one of 'sample', 'file' or 'toy_sample'")
    _check_keys("data field", data, (*head, *DATA_FIELDS))
    rest = {k: DATA_FIELDS[k](k, v) for k, v in data.items() if k not in head and v is not None}
    return head | rest


def check_distribution(spec) -> dict | None:
    """``{"preset": name}`` or ``{"json": <Distribution.to_json() object>}`` (built once to check it)."""
    if spec is None:
        return None
    if not isinstance(spec, dict) or len(spec) != 1 or not set(spec) <= {"preset", "json"}:
        raise RecipeError("'distribution' must be {\"preset\": name} or {\"json\": distribution object}")
    if "preset" in spec:
        return {"preset": _one_of(PRESETS)("preset", spec["preset"])}
    load_distribution(spec)
    return {"json": spec["json"]}


@dataclass(frozen=True)
class Recipe:
    """One page's run: ``data`` (where the rows come from), ``distribution`` (the toy one) and ``choices``
    (widget values by short name, see :data:`CHOICES`). Built only from checked values."""

    page: str
    data: dict | None = None
    distribution: dict | None = None
    choices: dict = field(default_factory=dict)
    missing: tuple[str, ...] = field(default=(), compare=False)  # what a link's maker had and it could not carry

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", check_choices(self.page, self.choices))
        object.__setattr__(self, "data", check_data(self.data))
        object.__setattr__(self, "distribution", check_distribution(self.distribution))

    def to_json(self) -> str:
        return json.dumps({"fslab_recipe": RECIPE_VERSION, "page": self.page, "data": self.data,
                           "distribution": self.distribution, "choices": self.choices}, indent=1)

    @classmethod
    def from_json(cls, text: str | bytes) -> Recipe:
        """Parse a recipe file (bounded JSON); RecipeError on anything that is not a valid recipe."""
        try:
            obj = loads(text, "recipe")
        except FslabError as err:
            raise RecipeError(str(err)) from None
        if not isinstance(obj, dict) or "fslab_recipe" not in obj:
            raise RecipeError("not an fslab recipe: it needs an object with \"fslab_recipe\": 1")
        if obj["fslab_recipe"] != RECIPE_VERSION or isinstance(obj["fslab_recipe"], bool):
            raise RecipeError(f"recipe version {obj['fslab_recipe']!r} is not supported; this fslab reads "
                              f"version {RECIPE_VERSION}")
        _check_keys("recipe field", obj, ("fslab_recipe", "page", "data", "distribution", "choices"))
        return cls(_check_page(obj.get("page")), obj.get("data"), obj.get("distribution"), obj.get("choices", {}))

    def left_out_of_query(self) -> list[str]:
        """What :meth:`to_query` cannot put in a URL (an uploaded file, a custom distribution)."""
        notes = []
        if self.data and "file" in self.data:
            notes.append(f"the contents of the uploaded file {self.data['file']!r} (whoever opens the link is "
                         "asked to upload the same file, checked by its SHA-256)")
        if self.data and _has_comma(self.data.get("exclude", [])):
            notes.append("the columns left out (a name holds a comma; download the recipe to share them)")
        if self.distribution and "json" in self.distribution:
            notes.append("the custom toy distribution (download the recipe to share it)")
            if self.data and "toy_sample" in self.data:
                notes.append("the rows sampled from it")
        return notes

    def to_query(self) -> dict[str, str]:
        """Flat string parameters; what cannot travel in a URL is left out (see :meth:`left_out_of_query`)."""
        query: dict[str, str] = {}
        data = self.data or {}
        if "sample" in data or "file" in data:  # a file by name and fingerprint: the link asks for the file
            query |= {"data": data["sample"]} if "sample" in data else {"file": data["file"], "sha256": data["sha256"]}
            query |= {k: ",".join(v) if isinstance(v, list) else str(v).lower() if isinstance(v, bool) else str(v)
                      for k, v in data.items()
                      if k in DATA_FIELDS and not (k in ("exclude", "types") and _has_comma(v))}
        elif "toy_sample" in data and "json" not in (self.distribution or {}):  # rows of a preset only
            query |= {"toy_m": str(data["toy_sample"]["m"]), "toy_seed": str(data["toy_sample"]["seed"])}
        if self.distribution and "preset" in self.distribution:
            query["dist"] = self.distribution["preset"]
        elif self.distribution:  # a custom law: the receiver learns that the link could not bring it
            query["dist"] = CUSTOM_DIST
        for name, value in self.choices.items():
            query[name] = (";".join(",".join(map(str, row)) for row in value) if _is_matrix(value) else
                           ",".join(value) if isinstance(value, list) else
                           ("true" if value else "false") if isinstance(value, bool) else str(value))
        return query

    @classmethod
    def from_query(cls, page: str, query: Mapping[str, str]) -> Recipe:
        """The recipe of a share link: ``page`` from the URL path, everything else from its parameters."""
        schema = CHOICES[_check_page(page)]
        query = {k: v for k, v in query.items() if k not in IGNORED_PARAMS}
        _check_keys(f"link parameter for the {page} page", query, (*QUERY_DATA_PARAMS, *schema))
        data = None
        sources = [what for what, names in _DATA_SOURCES.items() if set(names) & set(query)]
        if len(sources) > 1:  # one would be silently ignored
            raise RecipeError(f"a link names one data source; this one has {' and '.join(sources)}")
        fields = {k: _parse(DATA_FIELDS[k], query[k]) for k in DATA_FIELDS if k in query}
        if "data" in query:
            data = {"sample": query["data"]} | fields
        elif "file" in query or "sha256" in query:
            data = {"file": query.get("file", ""), "sha256": query.get("sha256", "")} | fields
        elif "toy_m" in query or "toy_seed" in query:
            data = {"toy_sample": {"m": _parse(_int(0, 0), query.get("toy_m", "1000")),
                                   "seed": _parse(_int(0, 0), query.get("toy_seed", "0"))}}
        elif set(DATA_FIELDS) & set(query):
            raise RecipeError(f"link parameters {', '.join(sorted(set(DATA_FIELDS) & set(query)))} need 'data' "
                              "(the sample they describe)")
        custom = query.get("dist") == CUSTOM_DIST
        distribution = {"preset": query["dist"]} if "dist" in query and not custom else None
        choices = {name: _parse(schema[name], text) for name, text in query.items() if name in schema}
        missing = ("the custom toy distribution it was made on (a link cannot carry one: ask for the recipe file, "
                   "which holds it)",) if custom else ()
        return cls(page, data, distribution, choices, missing)


def _is_matrix(value) -> bool:
    """A cost matrix (a list of rows): a link writes it "0.0,1.0;1.0,0.0", rows split by ';', entries by ','."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], list)


def _has_comma(names) -> bool:
    """A list of names that a comma-separated link parameter cannot carry."""
    return any("," in name for name in names)


_DATA_SOURCES = {"data= (a sample)": ("data",), "file= (an uploaded file)": ("file", "sha256"),
                 "toy_m= / toy_seed= (rows sampled from the toy distribution)": ("toy_m", "toy_seed")}
QUERY_DATA_PARAMS = ("data", "file", "sha256", *DATA_FIELDS, "toy_m", "toy_seed", "dist")
IGNORED_PARAMS = ("embed", "embed_options")  # Streamlit's own
# numbers as a URL writes them: ASCII digits only (int() and float() would also read "５" or "٥" as 5)
_INT_TEXT = re.compile(r"[+-]?[0-9]{1,12}")
_FLOAT_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?")


def _parse(check: Any, text: str):  # Any: a check marked by _kind (its .kind attribute)
    """A URL parameter as the type its check expects (``check.kind``); the check itself comes later."""
    if not isinstance(text, str):
        raise RecipeError(f"a link parameter must be text; got {text!r}")
    if check.kind == "list":
        return text.split(",")
    if check.kind == "cost" and ";" in text:  # a cost matrix: "0,1,2;1,0,1;4,1,0"
        return [[_number(v) for v in row.split(",")] for row in text.split(";")]
    if check.kind == "bool":
        return {"true": True, "false": False}.get(text, text)
    if check.kind in ("number", "cost"):
        return _number(text)
    return text


def _number(text: str):
    """A URL's number (int or finite float); anything else stays text, and the check names it: "'k' must be a whole
    number; got '５'"."""
    if _INT_TEXT.fullmatch(text):
        return int(text)
    if not _FLOAT_TEXT.fullmatch(text):
        return text
    value = float(text)
    return value if math.isfinite(value) else text


def load_distribution(spec: dict) -> Distribution:
    """The toy distribution of a recipe's ``distribution`` entry (a preset, or a distribution JSON object)."""
    if not isinstance(spec, dict):
        raise RecipeError("'distribution' must be {\"preset\": name} or {\"json\": distribution object}")
    try:
        if "preset" in spec:
            return preset(_one_of(PRESETS)("preset", spec["preset"]))
        dist = Distribution.from_json(json.dumps(spec.get("json")))
    except RecipeError:
        raise
    except FslabError as err:
        raise RecipeError(f"the recipe's distribution: {err}") from None
    if dist.n_features == 0:  # every page selects among features: nothing to show
        raise RecipeError("the recipe's distribution has no features (its states are empty rows); "
                          "a toy distribution needs at least one feature")
    return dist


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plain_sample(data: dict | None) -> bool:
    """True when a descriptor names a shipped sample with only its discretisation (no target, positive class,
    columns left out, column types or missing-value rule): it loads as Home loads it, ``load_sample(name)
    .discretize(method, bins)``. The one rule of :func:`load_dataset` and of the app's cache of samples."""
    return data is not None and "sample" in data and set(data) <= {"sample", "method", "bins"}


def load_dataset(data: dict | None, path=None, distribution=None, limits: Limits | None = None) -> EncodedDataset:
    """The encoded dataset a recipe's ``data`` describes, built as the app builds it.

    ``path`` (a path or the bytes) is the file of a ``{"file": ...}`` recipe: its SHA-256 must match, and it is
    read within ``limits`` (None: the server's, as the Data page reads an upload). ``distribution`` (a
    Distribution or a recipe ``distribution`` entry) is sampled for ``toy_sample``. Shipped samples take no caps.
    """
    data = check_data(data)
    if data is None:
        raise RecipeError("the recipe names no data")
    if "toy_sample" in data:
        if distribution is None:
            raise RecipeError("rows sampled from the toy distribution need the recipe's distribution")
        try:
            if not isinstance(distribution, Distribution):
                distribution = load_distribution(distribution)
            return distribution.sample(data["toy_sample"]["m"], data["toy_sample"]["seed"])
        except RecipeError:
            raise
        except FslabError as err:
            raise RecipeError(f"the recipe's data cannot be loaded: {err}") from None
    raw = load_table(data, path, limits)
    try:
        return raw.discretize(data.get("method", "mean-std"), data.get("bins", 3))
    except FslabError as err:
        raise RecipeError(f"the recipe's data cannot be loaded: {err}") from None


def load_table(data: dict | None, path=None, limits: Limits | None = None) -> Dataset:
    """The validated table (raw values kept: what re-binning and the binning check read) behind a recipe's
    ``{"sample": ...}`` or ``{"file": ...}`` descriptor, read as the Data page reads it; ``path`` and ``limits`` as
    in :func:`load_dataset`, whose codes are this table's ``discretize(method, bins)``."""
    data = check_data(data)
    if data is None or "toy_sample" in data:
        raise RecipeError("the recipe names no table (rows sampled from a toy distribution have no raw values)")
    try:
        positive, exclude = data.get("positive"), data.get("exclude", [])
        if "sample" in data:
            if plain_sample(data):  # the paper's encoding, as on Home
                return load_sample(data["sample"])
            ds = load_sample(data["sample"])
            frame = ds.to_frame()
            target = data.get("target", ds.target)
            if positive is None and target == ds.target:
                positive = SAMPLES[data["sample"]].positive
        else:
            if path is None:
                raise RecipeError(f"the recipe uses the uploaded file {data['file']!r}: upload the same file")
            raw = bytes(path) if isinstance(path, bytes | bytearray) else Path(path).read_bytes()
            if sha256_hex(raw) != data["sha256"]:
                raise RecipeError(f"this is not the file the recipe was made with: {data['file']!r} had SHA-256 "
                                  f"{data['sha256'][:12]}..., the upload has {sha256_hex(raw)[:12]}...")
            limits = limits_or_server(limits)
            frame, target = read_table(raw, limits=limits), data.get("target")
            if target is None:
                target = str(frame.columns[-1])
        if positive == ALL_CLASSES:
            positive = None
        if exclude:  # the columns the Data page left out (e.g. an ID column)
            unknown = [c for c in exclude if c not in frame.columns]
            if unknown or target in exclude:
                raise RecipeError(f"the recipe leaves out {', '.join(map(repr, unknown or [target]))}, "
                                  + ("which this data does not have" if unknown else "the target"))
            frame = frame.drop(columns=exclude)
        caps = None if "sample" in data else limits  # a shipped sample always fits (fslab.data.samples.sample_limits)
        types = dict(item.rsplit("=", 1) for item in data.get("types", ())) or None
        # as the Data page builds it: the columns it left out are in 'exclude', every other column is kept; a
        # shipped sample keeps the paper's columns, constant ones included (Mushroom's veil-type), as load_sample
        return Dataset.from_frame(frame, target, positive=positive, limits=caps, column_types=types,
                                  missing=data.get("missing", "level"), near_unique="keep",
                                  dayfirst=data.get("dayfirst", False),
                                  constant=data.get("constant", "keep" if "sample" in data else "drop"),
                                  target_split=parse_split(data["target_split"]) if "target_split" in data else None)
    except RecipeError:
        raise
    except FslabError as err:
        raise RecipeError(f"the recipe's data cannot be loaded: {err}") from None
