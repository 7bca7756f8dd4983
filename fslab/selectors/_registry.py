"""SELECTORS: the registry of search procedures (small frozen records the app and tests iterate over)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ._exhaustive import DEFAULT_MAX_SUBSETS


@dataclass(frozen=True)
class SelectorSpec:
    """One selector. ``kind``: forward | ranking | exhaustive | backward. ``uses_measure``: the selector
    maximises the Bayes criterion of the chosen measure (else it has its own criterion, named by
    ``criterion_name``). ``fixed_measure``: the measure it always uses. ``supports_s``: the s-variate
    approximation applies. ``params``: selector parameters with their defaults."""

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


_C = r"C^{\mathrm{Bayes},\ell}"
_SPECS = (
    SelectorSpec("bayes-greedy", "BayesGreedy", "forward", True, "Ahmed et al., Algorithm 1",
                 _C + r"(\mathcal J_t)=\max_{j\notin\mathcal J_{t-1}} " + _C + r"(\mathcal J_{t-1}\cup\{j\})",
                 supports_s=True),
    SelectorSpec("bayes-score", "BayesScore", "ranking", True, "Ahmed et al., Section 4 (score-based variant)",
                 r"\mathrm{score}(j) = " + _C + r"(\{j\})"),
    SelectorSpec("mi-greedy", "MIGreedy", "forward", False, "Ahmed et al., Section 4; Brown et al. 2012",
                 r"j_t = \arg\max_j I(X_{\mathcal J_{t-1}\cup\{j\}}; Y)", criterion_name="mi", supports_s=True),
    SelectorSpec("mi-score", "MIScore (MIM)", "ranking", False, "Lewis 1992; Ahmed et al., Section 4",
                 r"\mathrm{score}(j) = I(X_j; Y)", criterion_name="mi"),
    SelectorSpec("mrmr", "mRMR", "forward", False, "Peng, Long & Ding 2005 (difference form)",
                 r"j_t = \arg\max_j\, I(X_j;Y) - \frac{1}{|\mathcal J|}\sum_{i\in\mathcal J} I(X_j;X_i)",
                 criterion_name="mrmr gain"),
    SelectorSpec("jmi", "JMI", "forward", False, "Yang & Moody 1999",
                 r"j_t = \arg\max_j \sum_{i\in\mathcal J} I(X_j, X_i; Y)", criterion_name="jmi gain"),
    SelectorSpec("cmim", "CMIM", "forward", False, "Fleuret 2004",
                 r"j_t = \arg\max_j \min_{i\in\mathcal J} I(X_j; Y \mid X_i)", criterion_name="cmim gain"),
    SelectorSpec("fisher", "Fisher score", "ranking", False, "Gu, Li & Han 2011; Ahmed et al., Section 4",
                 r"F_j = \frac{\sum_l p_l(\mu_{lj}-\mu_j)^2}{\sum_l p_l\sigma_{lj}^2}", criterion_name="fisher"),
    SelectorSpec("exhaustive", "Exhaustive (best k-subset)", "exhaustive", True,
                 "Ahmed et al., Section 3.2; Pena & Nilsson",
                 r"\hat{\mathcal J} \in \arg\max_{|\mathcal J| = k} " + _C + r"(\mathcal J)",
                 params=MappingProxyType({"max_subsets": DEFAULT_MAX_SUBSETS})),
    SelectorSpec("backward", "Backward elimination", "backward", True, "Ahmed et al., Section 3.2",
                 r"j_t = \arg\max_{j\in\mathcal J} " + _C + r"(\mathcal J\setminus\{j\})", supports_s=True),
    SelectorSpec("precision-greedy", "Precision greedy", "forward", True, "Precision/recall notes (conjunction)",
                 r"j_t = \arg\max_j C^{\mathrm{prec}}(\mathcal J\cup\{j\})", fixed_measure="precision",
                 supports_s=True),
    SelectorSpec("recall-greedy", "Recall greedy", "forward", True, "Precision/recall notes (disjunction)",
                 r"j_t = \arg\max_j C^{\mathrm{rec}}(\mathcal J\cup\{j\})", fixed_measure="recall",
                 supports_s=True),
)

SELECTORS: MappingProxyType[str, SelectorSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
