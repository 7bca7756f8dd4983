"""Two sessions at once never see each other's data or results (issue 9, part 1).

AppTest sessions run in one process, so they share every ``st.cache_data`` cache exactly as two browser
sessions of one server do, while each has its own ``st.session_state``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from fslab.data import Dataset
from fslab.data.distributions import Distribution, example1
from fslab.data.encoded import EncodedDataset
from fslab.pena_nilsson.orderings import subset_risks
from fslab.pena_nilsson.toy import PRESETS, xor_distribution
from ui import state
from ui.compare import token
from ui.selection import RESULTS, source_key

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _session(page: str, **session_state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.session_state["orderings.table_open"] = True   # Orderings' table is folded, drawn when opened (issue 34.5)
    for key, value in session_state.items():
        at.session_state[key] = value
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _selected(at: AppTest) -> str:
    return next(s.value for s in at.success if s.value.startswith("Selected:"))


def _load_preset(at: AppTest, preset: str) -> None:
    at.selectbox(key="toy.preset").set_value(preset).run()
    at.button(key="toy.load_preset").click().run()
    assert at.session_state[state.DISTRIBUTION_NAME] == PRESETS[preset].label


def _table(at: AppTest, *columns: str):
    return next(df.value for df in [*at.dataframe, *at.table] if set(columns) <= set(df.value.columns))


def test_two_sessions_with_different_presets_get_their_own_selections():
    """Interleaved: A holds the Bayes paper's Example 1 (k = 1: 0-1 picks X1, MI picks X2), B the XOR preset
    (k = 2: both pick X1, X2). Each session's memo holds only its own runs."""
    a, b = _session("pages/toy.py"), _session("pages/toy.py")
    _load_preset(a, "bayes-example-1")
    _load_preset(b, "xor")
    for at, k in ((a, 1), (b, 2)):
        at.switch_page("pages/selection.py").run()
        at.radio(key="select.source").set_value("distribution").run()
        at.number_input(key="select.k").set_value(k).run()
    assert _selected(a) == "Selected: **X1**"
    assert _selected(b) == "Selected: **X1**, **X2**"
    b.selectbox(key="select.selector").set_value("mi-greedy").run()
    a.selectbox(key="select.selector").set_value("mi-greedy").run()
    assert _selected(a) == "Selected: **X2**"
    assert _selected(b) == "Selected: **X1**, **X2**"
    # the memo keyed by id(source) lives in each session's own state: no entry of the other session
    # (besides the default Mushroom run of the first visit)
    names = {at: {full[0][1] for full in at.session_state[RESULTS]} - {"mushroom (sample)"} for at in (a, b)}
    assert names[a] == {PRESETS["bayes-example-1"].label}
    assert names[b] == {PRESETS["xor"].label}
    for at, subsets, label in ((a, 4, "bayes-example-1"), (b, 8, "xor")):
        at.switch_page("pages/orderings.py").run()
        assert not at.exception, [e.value for e in at.exception]
        text = " ".join(m.value for m in at.markdown)
        assert f"{subsets} subsets of **{PRESETS[label].label}**" in text


def test_same_name_different_content_never_shares_a_cached_result():
    """Both sessions call their distribution 'shared name': the global caches (lattice, picks) must key on the
    content. Example 1's risks are 0.30, 0.25, 0.30, 0.22; the noiseless XOR's 0.5, 0.5, 0.5, 0."""
    laws = {"a": example1(), "b": xor_distribution(2, 2, 0.0)}
    sessions = {name: _session("pages/orderings.py", **{state.DISTRIBUTION: law,
                                                        state.DISTRIBUTION_NAME: "shared name"})
                for name, law in laws.items()}
    for name, at in sessions.items():
        assert _table(at, "names", "value", "rank")["value"].tolist() == subset_risks(laws[name])["value"].tolist()
    for at in sessions.values():  # the Toy page's picks are cached too, keyed by the law's JSON
        at.switch_page("pages/toy.py").run()
        assert not at.exception, [e.value for e in at.exception]
    picks = {name: _table(at, "measure", "BayesGreedy picks").set_index("measure")["BayesGreedy picks"]
             for name, at in sessions.items()}
    assert picks["a"]["0-1 error"] == "X1" and picks["a"]["mutual information"] == "X2"
    assert picks["b"]["0-1 error"] == "X1" and picks["b"]["mutual information"] == "X1"  # every single ties


def test_session_memos_key_data_by_content_not_by_object_identity():
    """A freed data set's id() can be handed to the next one; the Select and "Which k?" memos key by content."""
    same = copy.deepcopy(example1())
    assert same is not example1()
    assert source_key("distribution", "Example 1", example1()) == source_key("distribution", "Example 1", same)
    other = xor_distribution(2, 2, 0.0)
    assert source_key("distribution", "Example 1", other) != source_key("distribution", "Example 1", same)


# --- the content digest keys every shared cache on everything a computation reads (issue 18, "Also found") ---

def _sample(labels=(0.0, 1.0), values_scale: float = 1.0, class_names=None) -> EncodedDataset:
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    return EncodedDataset(X, [0, 1, 1, 0], labels=np.asarray(labels), class_names=class_names,
                          values=X * values_scale, task="binary")


def test_token_sees_label_values():
    """Squared error reads the label values: 0/1 and 0/100 targets on the same codes are different data."""
    assert token(_sample((0.0, 1.0))) != token(_sample((0.0, 100.0)))
    assert token(_sample((0.0, 1.0))) != token(_sample(np.array([0, 1])))  # 0.0 vs 0 as label values: dtype enters


def test_token_sees_raw_values_and_class_names():
    """Fisher's score reads the raw values; exports and messages read the class names."""
    assert token(_sample(values_scale=1.0)) != token(_sample(values_scale=2.0))
    assert token(_sample(class_names=("no", "yes"))) != token(_sample(class_names=("yes", "no")))


def test_token_sees_distribution_labels():
    a = Distribution(example1().states, example1().probs, labels=[0.0, 0.01])
    b = Distribution(example1().states, example1().probs, labels=[0.0, 100.0])
    assert token(a) != token(b)


def test_token_of_raw_datasets_sees_every_value():
    """Re-binning reads the raw table: two raw datasets with equal codes after binning still differ."""
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": ["x", "y", "x", "y"], "t": [0, 1, 0, 1]})
    other = frame.assign(a=[1.0, 2.0, 3.0, 4.5])
    assert token(Dataset.from_frame(frame, "t")) != token(Dataset.from_frame(other, "t"))
    assert token(Dataset.from_frame(frame, "t")) == token(Dataset.from_frame(frame.copy(), "t"))


def test_token_is_equal_for_equal_content_and_ignores_memos():
    a, b = _sample(), copy.deepcopy(_sample())
    b.cell_codes((0, 1))  # fills a private memo: not content
    assert token(a) == token(b)


def test_orderings_squared_error_is_not_shared_between_label_scales():
    """Two sessions, same distribution name and states, labels 0/0.01 vs 0/100: squared error 0.2475-scale vs
    2475-scale. The lattice cache must not hand one session the other's values."""
    law = example1()
    laws = {scale: Distribution(law.states, law.probs, labels=[0.0, scale], feature_names=law.feature_names)
            for scale in (0.01, 100.0)}
    values = {}
    for scale, dist in laws.items():
        at = _session("pages/orderings.py", **{state.DISTRIBUTION: dist, state.DISTRIBUTION_NAME: "shared name"})
        at.selectbox(key="orderings.measure").set_value("squared").run()
        assert not at.exception, [e.value for e in at.exception]
        values[scale] = _table(at, "names", "value", "rank")["value"].to_numpy()
        assert np.allclose(values[scale], subset_risks(dist, "squared")["value"].to_numpy())
    assert np.allclose(values[100.0], values[0.01] * 1e8)  # squared error scales with the label scale squared


def test_shared_results_are_bounded_by_entries_and_bytes():
    from ui.cache import SharedResults, result_key

    store = SharedResults(max_entries=3, max_mb=1)
    for i in range(5):
        store.put(result_key("npfs", i), np.zeros(1000))
    assert len(store) == 3 and store.get(result_key("npfs", 0)) is None  # least recently used out first
    assert store.get(result_key("npfs", 4)) is not None
    store.put("big", np.zeros(200_000))  # 1.6 MB pickled: over the store's 1 MB, never kept
    assert store.get("big") is None and store.size <= 1_000_000
    store.put("half", np.zeros(70_000))  # 0.56 MB: fits, older entries make room
    assert store.get("half") is not None and store.size <= 1_000_000


def test_result_keys_differ_by_every_setting():
    from ui.cache import result_key

    base = ("tok", "jmi", "zero-one", (), 5, 100, 0.01, 0)
    keys = {result_key("npfs", *base)}
    for i in range(len(base)):
        changed = list(base)
        changed[i] = ("other",)
        keys.add(result_key("npfs", *changed))
    assert len(keys) == len(base) + 1
    assert result_key("npfs", *base) != result_key("ksuggest", *base)


def test_a_samples_raw_dataset_is_one_object_so_its_digest_is_remembered():
    """The raw sample behind Select's binning check is one shared object (cache_resource), not a copy per run: its
    content digest is remembered by identity, so a rerun does not hash the whole table again."""
    from ui import compare

    first = compare._load_raw("mushroom")
    assert compare._load_raw("mushroom") is first
    assert compare.token(first) == compare.token(compare._load_raw("mushroom"))
