"""What the paper says about each selector: the Select page's expander follows the chosen selector."""

from __future__ import annotations

from fslab.selectors import SELECTORS

_PLUG_IN = ("The plug-in criterion replaces the law of (X_J, Y) by the counts of the sample, so for large k most "
            "cells hold one row and many candidates tie; the paper then uses the **bivariate approximation** "
            "(s = 2). Ties go to the lowest index; the trace says how many candidates tied.")

SAYS: dict[str, tuple[str, str]] = {
    "bayes-greedy": ("Algorithm 1, BayesGreedy (Ahmed, Narasimhan & Agarwal)",
                     "1. Start with J = {}.\n"
                     "2. For t = 1..k: add the feature j outside J that maximises the plug-in Bayes criterion "
                     "C(J + {j}).\n3. Output J.\n\n" + _PLUG_IN +
                     " With the log-loss the Bayes criterion is -H(Y|X_J), so BayesGreedy(log-loss) and MIGreedy "
                     "pick the same features (Example 5)."),
    "bayes-score": ("BayesScore, the score-based variant (Ahmed et al., Section 4)",
                    "Score every feature alone by its Bayes criterion C({j}) and keep the k best. One pass, no "
                    "interaction between features: two features that are useless alone but perfect together "
                    "(XOR) are never found, and two copies of the best feature are both kept."),
    "mi-greedy": ("MIGreedy (Ahmed et al., Section 4; Brown et al. 2012)",
                  "Greedy forward search on the joint mutual information I(X_J; Y). It is BayesGreedy with the "
                  "log-loss (Example 5), the right criterion when the classifier will output probabilities. For "
                  "the 0-1 error it can pick the wrong feature: in Example 1 it keeps X2 (0.17 bit) although X1 "
                  "has the lower Bayes error (0.25 < 0.30). " + _PLUG_IN),
    "mi-score": ("MIScore / MIM (Lewis 1992; Ahmed et al., Section 4)",
                 "Rank the features by I(X_j; Y) alone and keep the k best: fast, blind to redundancy (a copy of "
                 "the best feature ranks second) and to interactions."),
    "mrmr": ("mRMR (Peng, Long & Ding 2005), difference form",
             "Add the feature with the largest relevance I(X_j; Y) minus its mean redundancy I(X_j; X_i) with the "
             "features already chosen. A pairwise approximation of the joint criterion: it never builds tables "
             "of more than two features."),
    "jmi": ("JMI (Yang & Moody 1999)",
            "Add the feature with the largest sum over the chosen features i of I(X_j, X_i; Y): pairs, so it "
            "sees two-way interactions (XOR) that single-feature scores miss, without the joint tables of "
            "BayesGreedy."),
    "cmim": ("CMIM (Fleuret 2004)",
             "Add the feature whose worst-case information given any one chosen feature, min_i I(X_j; Y | X_i), is "
             "largest: a feature redundant with any chosen one scores low."),
    "fisher": ("Fisher score (Gu, Li & Han 2011)",
               "Rank features by between-class over within-class variance of their raw values. It ignores the "
               "performance measure and the other features; Ahmed et al. use it as a baseline."),
    "exhaustive": ("Exhaustive search",
                   "Score every subset of size k by the Bayes criterion and keep the best (the lexicographically "
                   "first among ties). Exact for the plug-in criterion, and the only way to be sure: Pena and "
                   "Nilsson's Theorem 1 shows any ordering of the subsets' risks can occur, so no greedy search "
                   "is safe in general. C(n, k) subsets: the app says how many before it runs."),
    "backward": ("Backward elimination",
                 "Start from all features and remove, one at a time, the feature whose removal keeps the Bayes "
                 "criterion best, down to k features. Pena and Nilsson's BS (Table 1) is the exact version that "
                 "stops when any removal raises the risk; it finds the minimal-optimal subset S*."),
    "precision-greedy": ("Greedy for precision (derivation notes shipped with fslab)",
                         "Add the feature value whose conjunction with the chosen ones gives the largest "
                         "precision criterion (approach 1: sum of probabilities; 2: log-likelihood)."),
    "recall-greedy": ("Greedy for recall (derivation notes shipped with fslab)",
                      "Add the feature value whose disjunction with the chosen ones gives the largest recall "
                      "criterion (approach 1: sum of probabilities; 2: log-likelihood)."),
}


def paper_says(selector: str) -> tuple[str, str]:
    """(expander title, markdown) for ``selector``; a selector without its own text gets its reference."""
    if selector in SAYS:
        return SAYS[selector]
    spec = SELECTORS[selector]
    return f"{spec.label} ({spec.reference})", f"{spec.label}: see {spec.reference}. The formula is shown above."
