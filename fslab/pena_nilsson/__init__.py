"""Pena and Nilsson: Bayes-risk orderings of feature subsets and the minimal-optimal subset S*.

``orderings`` (C(J) over the subset lattice, greedy paths, orderings built to mislead greedy search),
``minimal`` (backward and one-shot search on a known distribution, Section 4), ``finite`` (FBS / FOS on a
sample with a scikit-learn inducer, Section 5; imported on first use), ``toy`` (toy distributions and the
papers' presets).
"""
