"""SELECTORS: the registry of search procedures. Each record builds its own scorer and declares what the
app needs to know (does it count classes, how heavy is it, does it return a path), so neither ``select``
nor the pages branch on a selector's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..errors import ParameterError
from ..measures import Evaluator
from ..tables import TableSource
from ._fisher import fisher_scores
from ._loop import Hooks, Scorer
from ._scorers import CMIMScorer, FixedScorer, JMIScorer, MRMRScorer, PairGainScorer, SubsetScorer, SVariateScorer
from ._work import KIND_WORK, Work, pairwise_work, values_work


@dataclass(frozen=True)
class Run:
    """What a scorer factory gets: the source, the one evaluator of (source, criterion), s, direction, hooks."""

    source: TableSource
    ev: Evaluator | None  # None: a selector with its own statistic and no measure (Fisher)
    s: int | None
    backward: bool
    hooks: Hooks


@dataclass(frozen=True)
class SelectorSpec:
    """One selector. ``kind``: forward | ranking | exhaustive | backward. ``uses_measure``: the selector
    maximises the Bayes criterion of the chosen measure (else it has its own criterion, named by
    ``criterion_name``, always evaluated with the ``mi`` measure or none). ``fixed_measure``: the measure it
    always uses. ``supports_s``: the s-variate approximation applies. ``params``: selector parameters with
    their defaults (exhaustive's ``max_subsets`` None: the server's limit, read when it runs). ``scorer(run)``:
    builds the scorer the shared loop drives (None for exhaustive search).
    ``criterion_measure``: the measure whose evaluator a selector with its own criterion uses ("mi" for the
    MI family; None for Fisher, which reads raw values).

    Declared for the app: ``counts_classes`` (its own criterion treats Y as classes, so it does not take
    a real-valued target), ``cost_class`` ("light": one pass per step over the candidates; "heavy": work
    that grows with C(n, k) or with all n features per step, so the app asks before running it),
    ``needs_rows`` (it reads the rows' values or codes, not only count tables: ``select`` refuses a source
    without rows, such as a Dask source, with a ParameterError).

    Declared for the cost model (fslab.cost): ``work(n, k, s)`` -> :class:`~fslab.selectors._work.Work`, the subset
    tables and passes of one selection (None: the default of its ``kind``, ``KIND_WORK``).
    """

    name: str
    label: str
    kind: str
    uses_measure: bool
    reference: str
    formula: str
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    fixed_measure: str | None = None
    criterion_name: str | None = None
    supports_s: bool = False
    scorer: Callable[[Run], Scorer] | None = None
    criterion_measure: str | None = None
    counts_classes: bool = False
    cost_class: str = "light"
    needs_rows: bool = False
    work: Callable[[int, int, int | None], Work] | None = None

    def work_of(self, n: int, k: int, s: int | None = None) -> Work:
        """The work of selecting k of n features (``s``: the s-variate approximation, when the selector has it)."""
        return (self.work or KIND_WORK[self.kind])(n, k, s if self.supports_s else None)

    @property
    def returns_path(self) -> bool:
        """True when the features come in the order chosen (each prefix is the answer for a smaller k);
        exhaustive search and backward elimination return a set."""
        return self.kind in ("forward", "ranking")



def _ev(run: Run) -> Evaluator:
    """The run's evaluator: every selector but those with a statistic of their own has one."""
    assert run.ev is not None, "a measure-based scorer needs the run's evaluator"
    return run.ev


def _subset_scorer(run: Run) -> Scorer:
    if run.s is not None:
        return SVariateScorer(_ev(run), run.s, backward=run.backward, hooks=run.hooks)
    return SubsetScorer(_ev(run), backward=run.backward)


def _own_scores(run: Run) -> Scorer:
    return FixedScorer(_ev(run).extensions([], np.arange(run.source.n_features)))


def _gain(scorer: Callable[[Evaluator], PairGainScorer]) -> Callable[[Run], Scorer]:
    return lambda run: scorer(_ev(run))


def _fisher(run: Run) -> Scorer:
    return FixedScorer(fisher_scores(run.source))


_C = r"C^{\mathrm{Bayes},\ell}"
_SPECS = (
    SelectorSpec("bayes-greedy", "BayesGreedy", "forward", True, "Ahmed et al., Algorithm 1",
                 _C + r"(\mathcal J_t)=\max_{j\notin\mathcal J_{t-1}} " + _C + r"(\mathcal J_{t-1}\cup\{j\})",
                 supports_s=True, scorer=_subset_scorer),
    SelectorSpec("bayes-score", "BayesScore", "ranking", True, "Ahmed et al., Section 4 (score-based variant)",
                 r"\mathrm{score}(j) = " + _C + r"(\{j\})", scorer=_own_scores),
    SelectorSpec("mi-greedy", "MIGreedy", "forward", False, "Ahmed et al., Section 4; Brown et al. 2012",
                 r"j_t = \arg\max_j I(X_{\mathcal J_{t-1}\cup\{j\}}; Y)", criterion_name="mi", supports_s=True,
                 scorer=_subset_scorer, counts_classes=True, criterion_measure="mi"),
    SelectorSpec("mi-score", "MIScore (MIM)", "ranking", False, "Lewis 1992; Ahmed et al., Section 4",
                 r"\mathrm{score}(j) = I(X_j; Y)", criterion_name="mi", scorer=_own_scores, counts_classes=True,
                 criterion_measure="mi"),
    SelectorSpec("mrmr", "mRMR", "forward", False, "Peng, Long & Ding 2005 (difference form)",
                 r"j_t = \arg\max_j\, I(X_j;Y) - \frac{1}{|\mathcal J|}\sum_{i\in\mathcal J} I(X_j;X_i)",
                 criterion_name="mrmr gain", scorer=_gain(MRMRScorer), counts_classes=True, criterion_measure="mi",
                 work=pairwise_work),
    SelectorSpec("jmi", "JMI", "forward", False, "Yang & Moody 1999",
                 r"j_t = \arg\max_j \sum_{i\in\mathcal J} I(X_j, X_i; Y)", criterion_name="jmi gain",
                 scorer=_gain(JMIScorer), counts_classes=True, criterion_measure="mi",
                 work=pairwise_work),
    SelectorSpec("cmim", "CMIM", "forward", False, "Fleuret 2004",
                 r"j_t = \arg\max_j \min_{i\in\mathcal J} I(X_j; Y \mid X_i)", criterion_name="cmim gain",
                 scorer=_gain(CMIMScorer), counts_classes=True, criterion_measure="mi",
                 work=pairwise_work),
    SelectorSpec("fisher", "Fisher score", "ranking", False, "Gu, Li & Han 2011; Ahmed et al., Section 4",
                 r"F_j = \frac{\sum_l p_l(\mu_{lj}-\mu_j)^2}{\sum_l p_l\sigma_{lj}^2}", criterion_name="fisher",
                 scorer=_fisher, counts_classes=True, needs_rows=True, work=values_work),
    SelectorSpec("exhaustive", "Exhaustive (best k-subset)", "exhaustive", True,
                 "Ahmed et al., Section 3.2; Pena & Nilsson",
                 r"\hat{\mathcal J} \in \arg\max_{|\mathcal J| = k} " + _C + r"(\mathcal J)",
                 params=MappingProxyType({"max_subsets": None}), cost_class="heavy"),
    SelectorSpec("backward", "Backward elimination", "backward", True, "Ahmed et al., Section 3.2",
                 r"j_t = \arg\max_{j\in\mathcal J} " + _C + r"(\mathcal J\setminus\{j\})", supports_s=True,
                 scorer=_subset_scorer, cost_class="heavy"),
    SelectorSpec("precision-greedy", "Precision greedy", "forward", True, "Precision/recall notes (conjunction)",
                 r"j_t = \arg\max_j C^{\mathrm{prec}}(\mathcal J\cup\{j\})", fixed_measure="precision",
                 supports_s=True, scorer=_subset_scorer, needs_rows=True),
    SelectorSpec("recall-greedy", "Recall greedy", "forward", True, "Precision/recall notes (disjunction)",
                 r"j_t = \arg\max_j C^{\mathrm{rec}}(\mathcal J\cup\{j\})", fixed_measure="recall",
                 supports_s=True, scorer=_subset_scorer, needs_rows=True),
)

_REGISTRY: dict[str, SelectorSpec] = {spec.name: spec for spec in _SPECS}
SELECTORS: MappingProxyType[str, SelectorSpec] = MappingProxyType(_REGISTRY)


class SelectorSet(Set):
    """The names of the registered selectors whose record satisfies ``rule``, read from :data:`SELECTORS` on every
    use (so a registered record is in it), e.g. ``SelectorSet(lambda spec: spec.counts_classes)``."""

    def __init__(self, rule: Callable[[SelectorSpec], bool]):
        self._rule = rule

    def __contains__(self, name: object) -> bool:
        spec = _REGISTRY.get(name) if isinstance(name, str) else None
        return spec is not None and bool(self._rule(spec))

    def __iter__(self):
        return (name for name, spec in _REGISTRY.items() if self._rule(spec))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def register(spec: SelectorSpec) -> SelectorSpec:
    """Add a selector record (an extension, at start-up): ``select``, NPFS, the cost model, links, recipes, the
    command line and every page that offers selectors read it from :data:`SELECTORS`. Refuses a taken name."""
    if not isinstance(spec, SelectorSpec):
        raise ParameterError(f"register takes a SelectorSpec; got {type(spec).__name__}")
    if spec.name in _REGISTRY:
        raise ParameterError(f"a selector named '{spec.name}' is already registered")
    if spec.kind not in KIND_WORK:
        raise ParameterError(f"selector kind must be one of: {', '.join(KIND_WORK)}; got '{spec.kind}'")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a selector record added by :func:`register` (the shipped ones stay)."""
    if name in {spec.name for spec in _SPECS}:
        raise ParameterError(f"'{name}' is a shipped selector; only registered ones can be removed")
    _REGISTRY.pop(name, None)
