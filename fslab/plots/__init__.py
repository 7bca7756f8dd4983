"""Plotly figure builders: each returns a go.Figure and never calls Streamlit."""

from .compare import disagreement_figure, learning_curve_figure, overlap_figure, step_grid_figure
from .data import bins_figure, class_balance_figure
from .npfs import (
    counts_figure,
    k_test_figure,
    relevant_image_figure,
    relevant_path_figure,
    selection_matrix_figure,
    stability_figure,
)
from .orderings import decisions_figure, gap_figure, hasse_figure, ordering_figure
from .selection import trace_curves_figure, trace_heatmap_figure
from .toy import convergence_figure, joint_figure

__all__ = [
    "bins_figure", "class_balance_figure", "convergence_figure", "counts_figure", "decisions_figure",
    "disagreement_figure", "gap_figure", "hasse_figure", "joint_figure", "k_test_figure", "learning_curve_figure",
    "ordering_figure", "overlap_figure", "relevant_image_figure", "relevant_path_figure", "selection_matrix_figure",
    "stability_figure", "step_grid_figure", "trace_curves_figure", "trace_heatmap_figure",
]
