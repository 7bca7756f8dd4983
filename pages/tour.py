"""The Example 1 tour: four short steps from Ahmed et al.'s Example 1 to Pena-Nilsson's Theorem 1 and NPFS."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.pena_nilsson.orderings import greedy_path
from fslab.pena_nilsson.toy import PRESETS
from fslab.plots.orderings import hasse_figure
from ui import orderings as uo
from ui import theme, tour
from ui.npfs import load_uniform
from ui.source import current_distribution
from ui.text import md, read_aloud

read_aloud("tour")
if problem := tour.follow_link():
    st.warning(md(problem), icon=":material/link_off:")
t = tour.step()
tour.write_link()
head, prev, nxt = st.columns([3, 1, 1], vertical_alignment="bottom")
head.caption(f"Example 1 tour · step {t + 1} of {len(tour.STEPS)}")
head.header(tour.STEPS[t], anchor=False)
prev.button("Previous", key="tour.prev", on_click=tour.move, args=(-1,), disabled=t == 0, width="stretch")
nxt.button("Next", key="tour.next", on_click=tour.move, args=(1,), disabled=t == len(tour.STEPS) - 1,
           type="primary", width="stretch")
if t == len(tour.STEPS) - 1 and (back := tour.replaced()):  # the last step needs no toy distribution
    tour.restore()
    st.info(f"Your toy distribution **{md(back)}** is back (the tour had replaced it with its examples).",
            icon=":material/undo:")
elif t == len(tour.STEPS) - 1:
    st.caption(f"The tour left **{md(current_distribution()[0])}** loaded as the toy distribution; the Toy and "
               "Orderings pages show it.")

if t == 0:
    tour.install_preset("bayes-example-1")
    x = tour.example1_numbers()
    st.markdown("Two binary features, a binary class, exact probabilities (Ahmed, Narasimhan & Agarwal, "
                "**Example 1**). You may keep **one** feature. Which one is better?")
    left, right = st.columns(2)
    with left.container(border=True):
        st.markdown("**Judged by the 0-1 error** (lower is better)")
        a, b = st.columns(2)
        a.metric("er*(X1)", f"{x['er1']:.2f}", **tour.best_chip(x["er1"] < x["er2"]))
        b.metric("er*(X2)", f"{x['er2']:.2f}", **tour.best_chip(x["er2"] < x["er1"]))
    with right.container(border=True):
        st.markdown("**Judged by mutual information** (higher is better)")
        a, b = st.columns(2)
        a.metric("I(X1; Y)", f"{x['mi1']:.2f} bit", **tour.best_chip(x["mi1"] > x["mi2"]))
        b.metric("I(X2; Y)", f"{x['mi2']:.2f} bit", **tour.best_chip(x["mi2"] > x["mi1"]))
    st.success(f"**Verdict: they disagree.** Mutual information keeps **X2** ({x['mi2']:.2f} > {x['mi1']:.2f} bit), "
               f"but the best classifier that sees only X2 errs {x['er2']:.0%} of the time, against {x['er1']:.0%} "
               "with X1. The best feature depends on the performance measure: select by the measure you will be "
               "judged on.")
    st.latex(r"\mathrm{er}^*(J)=\sum_{x_J}\min_y p(x_J, y)\qquad\qquad I(X_J;Y)=H(Y)-H(Y\mid X_J)")
    st.caption("Ahmed et al., Section 4, Example 1; the values are computed exactly from the distribution "
               "(loaded as the toy distribution, so every page's 'Toy distribution' option now uses it). "
               "The **By measure** page shows the same question for seven measures on any data.")
elif t == 1:
    st.markdown("With n features there are 2ⁿ subsets. Draw each as a node, one row per size, an edge from S to "
                "S + one feature: the **lattice**. Each node carries its Bayes value; greedy forward search walks "
                "up one edge at a time, always to the best next node. On Example 1 the two measures walk "
                "different paths from the first step.")
    tour.install_preset("bayes-example-1")
    name, dist = current_distribution()
    cols = st.columns(2)
    for col, measure, label in ((cols[0], "zero-one", "0-1 error"), (cols[1], "mi", "mutual information")):
        out = uo.lattice(f"tour:{uo.fingerprint(dist)}", dist, measure)
        col.plotly_chart(theme.chart(hasse_figure(out["risks"], greedy_path(out["risks"]), out["optimal"],
                                                  title=label)),
                         width="stretch", key=f"tour.hasse.{measure}")
    st.caption(f"Subsets of {name}, exact values printed under each node; orange = greedy forward search, red "
               "rings = the best subset of each size (exhaustive). The **Orderings** page draws any measure's "
               "lattice, up to 2^15 subsets.")
elif t == 2:
    st.markdown("Pena & Nilsson, **Theorem 1**: apart from monotonicity (a superset is never worse) *every* "
                "ordering of the subsets' Bayes risks occurs for some distribution. So an adversary can order "
                "them to mislead greedy search: the best single feature belongs only to the worst pairs.")
    tour.install_preset("greedy-bad")
    name, dist = current_distribution()
    out = uo.lattice(f"tour:{uo.fingerprint(dist)}", dist, "zero-one")
    st.plotly_chart(theme.chart(hasse_figure(out["risks"], greedy_path(out["risks"]), out["optimal"],
                                 title="Greedy made bad: Bayes 0-1 risk of every subset")),
                    width="stretch", key="tour.greedy_bad")
    gaps = out["gaps"]
    st.caption(f"{PRESETS['greedy-bad'].teaches} ({PRESETS['greedy-bad'].reference}.) The toy distribution is now "
               "this construction; build your own ordering on the **Orderings** page, tab 'Theorem 1'.")
    uo.show_gaps(gaps)
else:
    st.markdown("On real data there is no exact distribution, only a sample, and a selector's picks move with "
                "it. **NPFS** (Ditzler, Polikar & Rosen 2015) reruns a selector on n bootstrap samples and keeps "
                "the features chosen more often than chance would allow, a binomial test of size alpha.")
    st.latex(r"Z_i\sim\mathrm{Binomial}(n, k/K)\ \text{under } H_0,\qquad i\ \text{relevant} \iff z_i>\zeta")
    st.markdown("The paper's **D_uni**: K = 25 features uniform on [0, 10], y = 1 iff x1 + ... + x5 <= 25, "
                "1000 rows. Only X1..X5 matter; NPFS should find exactly those, even when asked for k = 10.")
    if st.button("Load D_uni and open NPFS", key="tour.npfs", type="primary"):
        load_uniform()
        st.switch_page("pages/npfs.py")
    st.caption("NPFS with 100 bootstraps takes a few seconds; the NPFS page says how long before it runs.")

if t < len(tour.STEPS) - 1 and (back := tour.replaced()):
    st.caption(f"The tour shows its examples as the toy distribution; yours, **{md(back)}**, comes back at the last "
               "step, or now with this button (it leaves the tour).")
    if st.button(f"Put back {md(back)} and leave the tour", key="tour.restore"):
        tour.restore()
        st.switch_page("pages/toy.py")
