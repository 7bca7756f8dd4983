"""Issue 34: the Scores page's tables fit a 1024 px projector: short headers ("0-1 in", "MI out", "Δ AUC") with the
full column name in each tooltip, spelled out in the caption."""

from __future__ import annotations

import pandas as pd

from fslab.scores import HELD_OUT, IN_SAMPLE, column_label
from ui.scores import column_config, header_legend, history_config, history_table, levels_note, short_label, with_picks


def test_short_labels_name_the_measure_and_the_estimate():
    assert short_label("zero-one", IN_SAMPLE) == "0-1 in"
    assert short_label("mi", HELD_OUT) == "MI out"
    assert short_label("log-loss", HELD_OUT) == "LL out"
    # the longest default header has 8 characters; MI's full held-out name has 28
    longest = max(len(short_label(m, e)) for m in ("zero-one", "balanced", "auc", "log-loss", "mi")
                  for e in (IN_SAMPLE, HELD_OUT))
    assert longest == len("bal. out") == 8 < len(column_label("mi", "cross-fitted")) == 28


def test_the_score_columns_get_short_headers_and_full_tooltips():
    columns = ["feature", "levels", column_label("balanced", "plug-in"), column_label("balanced", "cross-fitted"),
               column_label("auc", "plug-in")]
    config = column_config(pd.DataFrame(columns=columns), ["balanced", "auc"])
    held = config["balanced error, held-out"]
    assert held["label"] == "bal. out" and held["help"] == "balanced error, held-out: lower is better"
    assert config["AUC, in-sample"]["label"] == "AUC in"
    assert config["AUC, in-sample"]["help"] == "AUC, in-sample: higher is better"
    assert "AUC, held-out" not in config  # a column the table lacks is not configured
    assert config["pick"]["pinned"] and config["feature"]["pinned"]


def test_the_caption_spells_out_every_short_name_shown():
    assert header_legend(["zero-one", "auc", "mi"], held_out=True) == (
        "Headers: 0-1 = 0-1 error, MI = mutual information; in = in-sample, out = held out (hover a header for its "
        "full name).")
    assert header_legend(["auc", "log-loss"], held_out=False) == \
        "Headers: LL = log-loss; in = in-sample (hover a header for its full name)."
    # an exact distribution has no held-out column; AUC keeps its name
    assert header_legend(["auc"], held_out=False) == "Headers: in = in-sample (hover a header for its full name)."


def test_a_levels_column_of_at_most_2_levels_is_said_once_instead():
    uniform = pd.DataFrame({"feature": ["a", "b"], "levels": [2, 2], "AUC, in-sample": [0.5, 0.75]})
    assert levels_note(uniform) == "Every feature has 2 levels."
    assert list(with_picks(uniform).columns) == ["pick", "feature", "AUC, in-sample"]
    # Mushroom: 115 features with 2 levels and a constant one
    assert levels_note(uniform.assign(levels=[2, 1])) == "Every feature has at most 2 levels."
    many = uniform.assign(levels=[2, 400])  # an ID-like column: the levels tell
    assert levels_note(many) is None
    assert list(with_picks(many).columns) == ["pick", "feature", "levels", "AUC, in-sample"]
    assert levels_note(uniform.assign(levels=[3, 3])) is None


def test_the_history_gets_short_headers():
    entries = [{"features": ["a"], "values": {"0-1 error": 0.25, "AUC": 0.75}, "estimate": HELD_OUT},
               {"features": ["a", "b"], "values": {"0-1 error": 0.20, "AUC": 0.80}, "estimate": HELD_OUT}]
    table = history_table(entries)
    assert table["Δ 0-1 error"].iloc[1] == 0.20 - 0.25
    config = history_config(table)
    assert config["0-1 error"]["label"] == "0-1" and config["Δ 0-1 error"]["label"] == "Δ 0-1"
    assert config["Δ AUC"]["help"] == "change in AUC from the pick kept before"
    assert config["features"]["width"] == 160 and "estimate" not in config and "#" not in config
