"""Names of the app's own data sets that more than one ui/ module compares against (kept here so ui.share and the
page helpers it links to import this leaf instead of each other: issue 36.1's one ui/ circle)."""

UNIFORM_NAME = "uniform (sample, 3 equal-width bins)"  # NPFS's D_uni as the session's data set (ui.npfs.load_uniform)
