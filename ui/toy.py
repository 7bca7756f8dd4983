"""Toy distribution page helpers: cached fslab calls keyed by the distribution's JSON, and the builders."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from fslab import terms
from fslab.convergence import criterion_picks, optimum_rate
from fslab.data.distributions import Distribution, from_joint_frame, joint_frame
from fslab.errors import FslabError
from fslab.limits import LIMITS
from fslab.measures import MEASURES
from fslab.pena_nilsson.minimal import check_assumptions
from fslab.pena_nilsson.toy import (
    PRESETS,
    naive_bayes_frame,
    naive_bayes_from_frame,
    random_dirichlet,
    with_copy,
    xor_distribution,
)

from . import state
from .cache import BOUNDED
from .text import md

VERSION = "toy.version"  # bumped whenever this page installs a distribution: the editors start afresh
MAX_EDIT_STATES = 256


def install(name: str, dist: Distribution) -> None:
    """Make ``dist`` the session's toy distribution (other pages read it through ui.source)."""
    state.set_distribution(name, dist)
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


# the k that shows what a preset teaches (XOR: the pair; a redundant copy: the second pick skips the copy)
INSTRUCTIVE_K = {"xor": 2, "redundant-copies": 2, "greedy-bad": 2, "s-star-vs-markov": 2}
K_KEYS = ("toy.pick_k", "toy.conv_k")
K_NEXT = "toy.k_next"  # a k set by a builder below the k box: applied before the box is drawn on the next run


def install_preset(key: str) -> None:
    """Make preset ``key`` the toy distribution and set the page's k boxes to its instructive k."""
    preset = PRESETS[key]
    dist = preset.factory()
    install(preset.label, dist)
    for k_key in K_KEYS:
        st.session_state[k_key] = min(INSTRUCTIVE_K.get(key, 1), dist.n_features)


def preset_of(name: str | None) -> str | None:
    """The preset key whose label is ``name`` (the distribution's display name), or None."""
    return next((key for key, p in PRESETS.items() if p.label == name), None)


def k_box(container, label: str, key: str, n_features: int) -> int:
    """A k number box whose value lives in the session state (so a preset can set it), kept within 1..n."""
    if (k_next := st.session_state.pop(K_NEXT, None)) is not None:
        for k_key in K_KEYS:
            st.session_state[k_key] = k_next
    if not 1 <= st.session_state.get(key, 1) <= max(1, n_features):
        st.session_state[key] = 1
    st.session_state.setdefault(key, 1)
    return int(container.number_input(label, 1, max(1, n_features), key=key, persist_state="session"))


def version() -> int:
    return st.session_state.get(VERSION, 0)


@st.cache_data(**BOUNDED, show_spinner=False)
def picks(dist_json: str, k: int) -> pd.DataFrame:
    """Every measure's choice of k features by BayesGreedy and by exhaustive search (one row per measure).

    BayesGreedy with the MI measure is MIGreedy (Ahmed et al., Section 4)."""
    long = criterion_picks(Distribution.from_json(dist_json), k)
    wide = long.pivot(index="measure", columns="selector", values="picks")
    value = long[long["selector"] == "exhaustive"].set_index("measure")
    out = pd.DataFrame({"measure": wide.index, "BayesGreedy picks": wide["bayes-greedy"].to_numpy(),
                        "best k-subset (exhaustive)": wide["exhaustive"].to_numpy()})
    out["its Bayes value"] = value.loc[out["measure"], "value"].to_numpy()
    name_of = {MEASURES[name].label: name for name in MEASURES}
    out["better"] = [terms.direction(name_of[label]) if label in name_of else "" for label in out["measure"]]
    out["note"] = value.loc[out["measure"], "note"].to_numpy()
    ties = long.pivot(index="measure", columns="selector", values="ties")
    out["tied optimal subsets"] = ties.loc[out["measure"], "exhaustive"].to_numpy()
    out["BayesGreedy ties"] = ties.loc[out["measure"], "bayes-greedy"].to_numpy()
    order = {label: i for i, label in enumerate(long["measure"].drop_duplicates())}
    return out.sort_values("measure", key=lambda c: c.map(order)).reset_index(drop=True)


def pick_verdict(k: int, best: str, best_ties: str, value: float, mi_pick: str) -> str:
    """The Toy page's sentence comparing the 0-1 error's best k-subset(s) with MIGreedy's pick, ties said."""
    if best_ties:
        optima = best_ties.split(" / ")
        listed = ", ".join(optima[:-1]) + f" and {optima[-1]}" if len(optima) > 1 else optima[0]
        among = "one of them" if mi_pick in optima else "**none** of them"
        return (f"The 0-1 error's best {k}-subsets tie: **{md(listed)}** all reach {value:.4g} (the table "
                f"shows the first, by the lowest-index tie rule); mutual information (MIGreedy) picks "
                f"**{md(mi_pick)}**: {among}.")
    verdict = "the same features" if best == mi_pick else "**different** features"
    return (f"The 0-1 error's best {k}-subset is **{md(best)}**; mutual information (MIGreedy) picks "
            f"**{md(mi_pick)}**: {verdict}.")


@st.cache_data(**BOUNDED, show_spinner="Sampling and selecting...", show_time=True)
def rates(dist_json: str, sizes: tuple[int, ...], k: int, selectors: tuple[str, ...], measure: str,
          repeats: int, seed: int) -> pd.DataFrame:
    """How often each selector finds the exact optimum on samples of each size."""
    return optimum_rate(Distribution.from_json(dist_json), sizes, k, selectors, measure, repeats, seed)


def assumptions_box(dist: Distribution) -> None:
    """Pena-Nilsson's assumptions for this distribution, in plain words."""
    a = check_assumptions(dist)
    (st.success if a.hold else st.warning)("  \n".join(md(m) for m in a.messages()))


# --- builders: each returns nothing and installs a distribution when its button is pressed ---------

def preset_picker(current: str | None = None) -> str:
    """The preset picker, opened on the loaded preset (``current``: the distribution's name) when it is one; the
    page's "Load preset" button installs the choice."""
    if "toy.preset" not in st.session_state and preset_of(current) is not None:
        st.session_state["toy.preset"] = preset_of(current)  # e.g. a cold /toy?dist=xor link
    return st.selectbox("Preset", list(PRESETS), key="toy.preset", format_func=lambda n: PRESETS[n].label,
                        persist_state="session")


def preset_note(name: str) -> None:
    """The builder's first tab: what the preset chosen at the top of the page teaches."""
    st.info(f"**{PRESETS[name].label}** ({PRESETS[name].reference}). {PRESETS[name].teaches} Choose a preset and "
            "press **Load preset** at the top of the page, or build your own law in the other tabs.")


def naive_bayes_builder(current: Distribution) -> None:
    st.markdown("A class prior and, for each feature, its distribution given each class (pre-filled with the Bayes "
                "paper's Example 1). Add rows for more "
                "features or values (values 0, 1, ... for each feature); each class column must sum to 1 per feature.")
    prior1 = st.number_input("P(Y=1)", 0.0, 1.0, 0.3, 0.05, key="toy.nb_prior", format="%.3f", persist_state="session")
    base = naive_bayes_frame([0.7, 0.3], [[[0.9, 0.1], [0.6, 0.4]], [[0.6, 0.4], [0.1, 0.9]]])
    config = {c: st.column_config.NumberColumn(c, min_value=0.0, max_value=1.0, format="%.4f")
              for c in base.columns if c.startswith("P(")}
    edited = st.data_editor(base, num_rows="dynamic", column_config=config, key="toy.nb_editor", hide_index=True)
    try:
        dist = naive_bayes_from_frame([1 - prior1, prior1], edited)
    except FslabError as err:
        st.error(md(err))
        return
    st.caption(f"{dist.n_features} features, {len(dist.states)} states.")
    if st.button("Use these conditionals", key="toy.use_nb", type="primary"):
        install("class-conditionally independent (edited)", dist)
        st.rerun()


def joint_builder(current: Distribution) -> None:
    n_states = math.prod(int(a) for a in current.arities)  # before building the grid: an import can be huge
    if n_states > MAX_EDIT_STATES:
        st.warning(f"The current distribution has {n_states:,} states; editing is limited to "
                   f"{MAX_EDIT_STATES}. Export it as JSON, edit the file and import it instead.")
        return
    frame = joint_frame(current)
    st.markdown("Every state of the features with p(x, y) per class. Edit in place; the sum is checked live.")
    config = {c: st.column_config.NumberColumn(c, min_value=0.0, format="%.4f")
              for c in frame.columns if c.startswith("P(")}
    edited = st.data_editor(frame, num_rows="dynamic", column_config=config, hide_index=True,
                            key=f"toy.joint_editor_{version()}")
    normalise = st.checkbox("Normalise automatically (divide every entry by the sum)", value=True,
                            key="toy.normalise", persist_state="session")
    prob_cols = [c for c in edited.columns if str(c).startswith("P(")]
    total = float(pd.to_numeric(edited[prob_cols].stack(), errors="coerce").sum())
    st.metric("Sum of all entries", f"{total:.4f}")
    try:
        dist = from_joint_frame(edited, normalise=normalise)
    except FslabError as err:
        st.error(md(err))
        return
    if normalise and abs(total - 1) > 1e-9:
        st.caption(f"Entries divided by {total:.4f} so they sum to 1.")
    if st.button("Use this table", key="toy.use_joint", type="primary"):
        install("joint table (edited)", dist)
        st.rerun()


def generator_builder(current: Distribution) -> None:
    kind = st.radio("Generator", ["random Dirichlet", "XOR interaction", "redundant copy"], key="toy.generator",
                    horizontal=True, persist_state="session")
    cols = st.columns(3)
    try:
        if kind == "random Dirichlet":
            n = cols[0].number_input("features", 1, 8, 3, key="toy.dir_n", persist_state="session")
            a = cols[1].number_input("values per feature", 2, 4, 2, key="toy.dir_a", persist_state="session")
            conc = cols[2].number_input("concentration", 0.05, 50.0, 1.0, 0.05, key="toy.dir_conc",
                                        persist_state="session")
            seed = cols[0].number_input("seed", 0, 10**6, 0, key="toy.dir_seed", persist_state="session")
            st.caption("p(x, y) ~ Dirichlet(concentration): small values give peaked laws, large ones nearly uniform.")
            make = lambda: (f"random Dirichlet (n={n}, a={a}, c={conc:g}, seed={seed})",  # noqa: E731
                            random_dirichlet(int(n), int(a), 2, float(conc), int(seed)))
        elif kind == "XOR interaction":
            n = cols[0].number_input("features", 2, 8, 3, key="toy.xor_n", persist_state="session")
            # the XOR cannot involve more features than exist: clamp a remembered order, bound the input by n
            st.session_state["toy.xor_order"] = min(int(st.session_state.get("toy.xor_order", 2)), int(n))
            order = cols[1].number_input("order (features in the XOR)", 2, int(n), key="toy.xor_order",
                                         help="how many of the features enter the XOR; at most the number of features",
                                         persist_state="session")
            noise = cols[2].number_input("label noise", 0.0, 0.49, 0.0, 0.01, key="toy.xor_noise",
                                         persist_state="session")
            st.caption("Y = X1 xor ... xor X_order, flipped with probability noise; other features are noise.")
            make = lambda: (f"XOR (n={n}, order={order}, noise={noise:g})",  # noqa: E731
                            xor_distribution(int(n), int(order), float(noise)))
        else:
            j = cols[0].selectbox("feature to copy", range(current.n_features), key="toy.copy_feature",
                                  format_func=lambda i: current.feature_names[i], persist_state="session")
            noise = cols[1].number_input("copy noise", 0.0, 1.0, 0.0, 0.05, key="toy.copy_noise",
                                         persist_state="session")
            st.caption("Appends X' = X_j (replaced by another value with probability noise) to the current law.")
            make = lambda: (f"{state.get_distribution()[0]} + copy of {current.feature_names[j]}",  # noqa: E731
                            with_copy(current, int(j), float(noise)))
        if st.button("Generate", key="toy.generate", type="primary"):
            name, dist = make()
            install(name, dist)
            if kind == "XOR interaction":   # an XOR of order r shows itself only once r features are picked
                st.session_state[K_NEXT] = int(order)  # the k boxes are drawn above: set on the next run
            st.rerun()
    except FslabError as err:
        st.error(md(err))


def json_builder(name: str, current: Distribution) -> None:
    upload = st.file_uploader("Import a distribution (JSON exported by fslab)", type=["json"], key="toy.json_upload",
                              max_upload_size=LIMITS.max_upload_mb)
    if upload is not None:
        try:
            dist = Distribution.from_json(upload.getvalue())
        except FslabError as err:
            st.error(f"{md(upload.name)}: {md(err)}")
        else:
            st.caption(f"{md(upload.name)}: {dist.n_features} features, {len(dist.states)} states.")
            if st.button("Use the imported distribution", key="toy.use_json", type="primary"):
                install(upload.name, dist)
                st.rerun()
    st.download_button("Export the current distribution as JSON", current.to_json(), file_name="distribution.json",
                       mime="application/json", key="toy.json_download", on_click="ignore")


def sample_rows(name: str, dist: Distribution, m: int, seed: int) -> str:
    """Draw m rows and make them the session's current dataset; returns the dataset name."""
    encoded = dist.sample(int(m), seed=int(seed))
    label = f"{name}: {int(m):,} sampled rows (seed {int(seed)})"
    state.set_dataset(label, encoded, None, spec={"toy_sample": {"m": int(m), "seed": int(seed)}})
    return label


def summary_frame(dist: Distribution) -> pd.DataFrame:
    """p(y) and, per feature, its number of values: the header of the current distribution."""
    py = dist.probs.sum(axis=0)
    return pd.DataFrame({"class": [str(v) for v in dist.labels], "p(y)": np.round(py, 4)})
