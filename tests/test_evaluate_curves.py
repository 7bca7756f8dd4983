"""Learning curves and the measure-matched learners: hand-checked test measures, protocol, progress, leakage."""

from __future__ import annotations

import numpy as np
import pytest

import fslab.curves as curves_module
from fslab.curves import learning_curves
from fslab.data.distributions import example1
from fslab.data.encoded import EncodedDataset
from fslab.errors import DataError, FslabError, ParameterError
from fslab.learners import LEARNERS, PAPER_LEARNER, best_threshold, empirical_value


def test_empirical_measures_by_hand():
    """y = (1, 1, 0, 0), pred = (1, 0, 1, 0): one TP, one FN, one FP, one TN.
    0-1: 2/4. Cost-sensitive c = 0.25 (Example 3: FP costs c, FN 1 - c): (0.25 + 0.75) / 4 = 0.25.
    Balanced: (FNR + FPR) / 2 = (1/2 + 1/2) / 2 = 0.5. F1 = 2 TP / (2 TP + FN + FP) = 2/4 = 0.5."""
    y, pred = np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])
    assert empirical_value("zero-one", y, pred) == 0.5
    assert empirical_value("cost-sensitive", y, pred, c=0.25) == pytest.approx(0.25)
    assert empirical_value("cost-sensitive", y, np.array([1, 1, 1, 1]), c=0.25) == pytest.approx(0.125)
    assert empirical_value("balanced", y, pred) == 0.5
    assert empirical_value("f-beta", y, pred) == pytest.approx(0.5)
    proba = np.array([[0.2, 0.8], [0.5, 0.5], [0.6, 0.4], [0.9, 0.1]])
    expected = -(np.log(0.8) + np.log(0.5) + np.log(0.6) + np.log(0.9)) / 4
    assert empirical_value("log-loss", y, pred, proba) == pytest.approx(expected)
    assert empirical_value("auc", y, pred, proba) == pytest.approx(1.0)  # positives score .8, .5 > .4, .1


def test_best_threshold_by_hand():
    """y = (0, 1, 1, 0, 1), score = (.1, .9, .8, .7, .3). F1 of 1(score >= t): t=.9: 2/4; t=.8: 4/5;
    t=.7: 4/6; t=.3: 6/7 (TP 3, FP 1); t=.1: 6/8. Best t = .3."""
    assert best_threshold(np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.9, 0.8, 0.7, 0.3])) == 0.3


def test_paper_learners_match_the_measures():
    assert PAPER_LEARNER["zero-one"] == "svm" and PAPER_LEARNER["cost-sensitive"] == "svm-cost"
    assert PAPER_LEARNER["balanced"] == "svm-balanced" and PAPER_LEARNER["f-beta"] == "logistic-threshold"
    svm = LEARNERS["svm-cost"].build(c=0.25)[-1]
    assert svm.class_weight == {1: 0.75, 0: 0.25}  # a false negative costs 1 - c
    bal = LEARNERS["svm-balanced"].build(p=0.2)[-1]
    assert bal.class_weight == pytest.approx({1: 5.0, 0: 1.25})  # 1/p and 1/(1-p)


def _data(m: int = 600, seed: int = 0) -> EncodedDataset:
    """Feature 0 = y with 10% noise, feature 1 = y with 30% noise, features 2..4 pure noise (ternary)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    f0 = np.where(rng.random(m) < 0.9, y, 1 - y)
    f1 = np.where(rng.random(m) < 0.7, y, 1 - y)
    X = np.c_[f0, f1, rng.integers(0, 3, (m, 3))]
    return EncodedDataset(X, y, labels=[0, 1])


def test_learning_curves_shape_and_values():
    res = learning_curves(_data(), ("bayes-greedy", "mi-score"), k_max=3, n_splits=2, learner="naive-bayes")
    assert res.complete and len(res.scores) == 2 * 2 * 3
    summary = res.summary()
    assert len(summary) == 6 and (summary["std"] >= 0).all() and (summary["splits"] == 2).all()
    k1 = summary[summary["k"] == 1]["mean"]
    assert np.allclose(k1, 0.1, atol=0.05)  # feature 0 alone: about 10% error
    # one greedy run per split at k_max, truncated: 3 steps per (split, selector)
    assert res.selections.groupby(["split", "selector"]).size().tolist() == [3, 3, 3, 3]


def test_selection_in_curves_sees_only_training_rows(monkeypatch):
    seen = []
    real = curves_module.select

    def spy(source, k, **kwargs):
        seen.append(source.n_rows)
        return real(source, k, **kwargs)

    monkeypatch.setattr(curves_module, "select", spy)
    learning_curves(_data(500), ("bayes-greedy", "exhaustive"), k_max=2, n_splits=2, train_size=0.7,
                    learner="tree")
    # bayes-greedy once per split; exhaustive once per k per split (not prefix-consistent)
    assert seen == [350] * 6


def test_progress_false_stops_early():
    calls = []

    def progress(done, total, message):
        calls.append((done, total))
        return done < 3

    res = learning_curves(_data(), ("bayes-greedy", "mi-greedy"), k_max=3, n_splits=2, learner="tree",
                          progress=progress)
    assert not res.complete and calls[-1][0] == 3 and calls[0][1] == 2 * 2 * 4
    assert len(res.scores) == 2


def test_tuning_and_subsample_run():
    res = learning_curves(_data(800), ("bayes-greedy",), "balanced", k_max=2, n_splits=1, learner="knn",
                          tune=True, subsample=400)
    assert res.complete and len(res.scores) == 2 and res.learner == "knn"


def test_errors():
    with pytest.raises(ParameterError, match="sample a distribution"):
        learning_curves(example1(), ("bayes-greedy",), k_max=1)
    with pytest.raises(ParameterError, match="unknown learner"):
        learning_curves(_data(), ("bayes-greedy",), k_max=1, learner="forest")
    with pytest.raises(ParameterError, match="train_size"):
        learning_curves(_data(), ("bayes-greedy",), k_max=1, train_size=1.5)
    multi = EncodedDataset(np.random.default_rng(0).integers(0, 2, (90, 2)), np.tile([0, 1, 2], 30))
    with pytest.raises(FslabError):
        learning_curves(multi, ("bayes-greedy",), "f-beta", k_max=1, learner="tree")


def test_cost_sensitive_curves_with_mi_selectors():
    res = learning_curves(_data(), ("bayes-greedy", "mrmr", "fisher"), "cost-sensitive", k_max=2, n_splits=1,
                          c=0.25, learner="tree")
    assert res.complete and res.learner == "tree" and len(res.scores) == 6
    assert (res.scores["value"] <= 0.75).all()  # a cost-sensitive error is at most max(c, 1 - c)


def _tiny(y) -> EncodedDataset:
    y = np.asarray(y)
    return EncodedDataset(np.c_[np.arange(y.size) % 2, np.arange(y.size) % 3], y, labels=[0, 1],
                          class_names=["no", "yes"])


def test_too_few_rows_of_a_class_is_a_data_error_before_any_fit():
    """tiny3.csv (QA): y = yes, no, yes. A 70/30 training part holds about 0.7 n_c rows of class c, so two rows
    need n_c >= ceil(2 / 0.7) = 3; 'no' has 1. With tuning (fits on 80% of it): ceil(2 / 0.56) = 4."""
    with pytest.raises(DataError, match=r"class 'no' for 70/30 .*1 row\(s\), need at least 3"):
        learning_curves(_tiny([1, 0, 1]), ("bayes-greedy",), k_max=1, n_splits=1)
    three_each = _tiny([0, 1] * 3)
    with pytest.raises(DataError, match="with tuning.*need at least 4"):
        learning_curves(three_each, ("bayes-greedy",), k_max=1, n_splits=1, tune=True, learner="tree")
    with pytest.raises(DataError, match="single class"):
        learning_curves(_tiny([1, 1, 1, 1]), ("bayes-greedy",), k_max=1, n_splits=1)
    with pytest.raises(ParameterError, match="subsample must be at least 2"):
        learning_curves(_data(), ("bayes-greedy",), k_max=1, subsample=1)


@pytest.mark.parametrize("learner", ["svm", "naive-bayes", "tree"])
def test_smallest_accepted_class_counts_fit_on_every_split(learner):
    """Three rows of each class pass the check (ceil(2 / 0.7) = 3) and every split trains on both classes."""
    res = learning_curves(_tiny([0, 1] * 3), ("bayes-greedy", "mi-score"), k_max=2, n_splits=4, learner=learner)
    assert res.complete and len(res.scores) == 4 * 2 * 2


def test_learning_curves_same_result_whatever_the_workers():
    """Each split's seed is drawn before any runs, so n_jobs (one joblib task per split) changes nothing; a stop
    keeps the splits finished so far."""
    import joblib

    kw = {"selectors": ("bayes-greedy", "mi-score"), "k_max": 2, "n_splits": 3, "learner": "naive-bayes", "seed": 7}
    want = learning_curves(_data(), **kw)
    with joblib.parallel_config(backend="threading"):
        got = learning_curves(_data(), n_jobs=2, **kw)
        seen = []
        stopped = learning_curves(_data(), n_jobs=2, progress=lambda d, t, m: seen.append(d) or d < 6, **kw)
    assert got.complete and got.scores.equals(want.scores) and got.selections.equals(want.selections)
    assert not stopped.complete and seen == [6]  # 2 selectors x (1 + 2 values of k) units per split
    assert stopped.scores.equals(want.scores[want.scores["split"] == 0].reset_index(drop=True))


def test_measure_parameters_default_to_the_measure_records():
    """One source of truth: c and beta start where the measure records say (c = 0.25, Ahmed et al. Sec. 4.1)."""
    import inspect

    from fslab.measures import DEFAULT_C, PARAM_DEFAULTS

    defaults = inspect.signature(learning_curves).parameters
    assert defaults["c"].default == DEFAULT_C == PARAM_DEFAULTS["c"] == 0.25
    assert defaults["beta"].default == PARAM_DEFAULTS["beta"]


def _id_and_signal(m: int = 40) -> EncodedDataset:
    """Feature 0 'id' (a code per row, 40 levels), feature 1 'signal' = y; y alternates 0, 1 (20 of each)."""
    y = np.arange(m) % 2
    return EncodedDataset(np.c_[np.arange(m), y], y, labels=[0, 1], feature_names=["id", "signal"])


def test_curves_select_inside_each_split_with_the_estimate_asked():
    """Both columns have in-sample 0-1 error 0 and I(X; Y) = H(Y) = 1 bit on any training part, so the plug-in
    criterion ties and the lower index, 'id', wins (DESIGN.md's tie rule). Held out, every 'id' code of a validation
    fold is unseen in its training folds: the rule backs off to the training prior (error ~ 1/2, MI gain 0), while
    'signal' = y keeps error 0; so the cross-fitted criterion picks 'signal' on every split. Naive Bayes on 'signal'
    predicts y exactly: the held-out curve is 0 on every split."""
    data = _id_and_signal()
    kwargs = {"k_max": 1, "n_splits": 3, "learner": "naive-bayes"}
    plug = learning_curves(data, ("bayes-greedy", "mi-greedy"), **kwargs)
    held = learning_curves(data, ("bayes-greedy", "mi-greedy"), estimate="cross-fitted", **kwargs)
    assert plug.estimate == "plug-in" and held.estimate == "cross-fitted"
    assert "held-out (5-fold" in held.estimate_label
    assert plug.selections["name"].eq("id").all() and len(plug.selections) == 6
    assert held.selections["name"].eq("signal").all() and len(held.selections) == 6
    assert held.scores["value"].tolist() == [0.0] * 6
    assert plug.scores["value"].min() > 0.0  # a test row's id was never seen in training


def test_curves_refuse_an_unknown_estimate():
    with pytest.raises(ParameterError, match="estimate must be one of"):
        learning_curves(_id_and_signal(), ("bayes-greedy",), k_max=1, n_splits=1, estimate="held-out")


def test_balanced_curves_on_three_classes_weigh_every_class():
    """svm-balanced on a 3-class target gets every class's share (p_y), not only P(Y=1): the curve runs and its test
    error is the mean per-class error, below chance (2/3) when X1 decides Y up to 20 % noise."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (300, 3))
    y = (X[:, 0] + (rng.random(300) < 0.2)) % 3
    res = learning_curves(EncodedDataset(X, y), ("bayes-greedy",), "balanced", k_max=1, n_splits=2)
    assert res.learner == "svm-balanced" and (res.scores["value"] < 0.4).all()
