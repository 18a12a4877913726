"""The findings table: paper A's qualitative claims of sections 4-5, checked on this run.

Each claim is decided by one comparison of two numbers taken from the tables the
pipeline already wrote; a row says which numbers, their values and whether the claim
holds. Nothing is re-estimated here, so the table cannot disagree with the figures:

========================================  ===========================================
claim (paper A)                           numbers compared
========================================  ===========================================
top skill neurons matter (§4.2, Fig. 4)   mean area between the own-order and the
                                          random-order curve (> 0) over eval tasks
same-type tasks correlate (§4.3, Fig. 5)  mean Spearman correlation of predictivity
                                          between same-type vs cross-type task pairs
same-type importance (§4.3, Fig. 6)       mean z-scored importance of same-type vs
                                          cross-type source tasks
predictivity beats selectivity (App. F)   mean area of the predictivity order vs the
                                          selectivity-index order
random label words agree (§4.4)           mean pairwise Spearman of the orders found
                                          with random label words (> 0.5)
pre-training makes skill neurons (§5)     top-neuron accuracy in the pre-trained vs a
                                          randomly initialised model (random prompts)
other tuning methods use them (§5)        per method, mean area of the prompt-tuning
                                          own order vs random in adapter/BitFit models
========================================  ===========================================
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

#: Agreement above which random-label-word orders count as agreeing (paper: 0.87).
AGREEMENT_THRESHOLD = 0.5

COLUMNS = ["claim", "paper", "measure", "value", "reference", "reference_value", "holds"]


def _finding(
    claim: str, paper: str, measure: str, value: float, reference: str, reference_value: float
) -> dict:
    """A row whose claim holds when ``value`` exceeds ``reference_value`` (NaN: undecided)."""
    decided = np.isfinite(value) and np.isfinite(reference_value)
    return {
        "claim": claim,
        "paper": paper,
        "measure": measure,
        "value": float(value),
        "reference": reference,
        "reference_value": float(reference_value),
        "holds": ("yes" if value > reference_value else "no") if decided else "n/a",
    }


def _nanmean(values) -> float:
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else float("nan")


def type_pair_correlations(
    correlation: pd.DataFrame, task_types: Mapping[str, str]
) -> tuple[float, float]:
    """Mean off-diagonal correlation of same-type and of cross-type task pairs.

    ``correlation`` is Figure 5's square table (index and columns: tasks)."""
    same, cross = [], []
    tasks = list(correlation.index)
    for i, a in enumerate(tasks):
        for b in tasks[i + 1 :]:
            (same if task_types[a] == task_types[b] else cross).append(correlation.loc[a, b])
    return _nanmean(same), _nanmean(cross)


def findings_table(
    importance_summary: pd.DataFrame,
    correlation: pd.DataFrame,
    controls: pd.DataFrame,
    label_word_agreement: pd.DataFrame,
    method_summaries: Mapping[str, pd.DataFrame],
    task_types: Mapping[str, str],
) -> pd.DataFrame:
    """One row per claim (see the module docstring), columns :data:`COLUMNS`.

    Inputs are the pipeline's tables: ``A-F6_summary`` (importance and curve areas per
    evaluation task), ``A-F5`` (indexed by task), ``A-T3`` (``*_mean`` columns),
    ``A-S4.4`` (``spearman_mean`` per task) and ``A-F8_<method>_summary`` per method.
    """
    same_corr, cross_corr = type_pair_correlations(correlation, task_types)
    rows = [
        _finding(
            "perturbing a task's top skill neurons hurts more than random neurons",
            "§4.2, A-F4/A-F11",
            "mean area own order vs random",
            _nanmean(importance_summary["own_area"]),
            "no effect",
            0.0,
        ),
        _finding(
            "predictivity orders of same-type tasks correlate more than cross-type",
            "§4.3, A-F5",
            "mean Spearman, same-type pairs",
            same_corr,
            "mean Spearman, cross-type pairs",
            cross_corr,
        ),
        _finding(
            "same-type source tasks are more important than cross-type ones",
            "§4.3, A-F6",
            "mean importance (z), same-type sources",
            _nanmean(importance_summary["same_type_importance"]),
            "mean importance (z), cross-type sources",
            _nanmean(importance_summary["cross_type_importance"]),
        ),
        _finding(
            "the predictivity order beats the selectivity index",
            "App. F, A-F15",
            "mean area, predictivity order vs random",
            _nanmean(importance_summary["own_area"]),
            "mean area, selectivity order vs random",
            _nanmean(importance_summary["selectivity_area"]),
        ),
        _finding(
            "orders found with random label words agree",
            "§4.4",
            "mean pairwise Spearman over draws",
            _nanmean(label_word_agreement["spearman_mean"]),
            "agreement threshold",
            AGREEMENT_THRESHOLD,
        ),
        _finding(
            "skill neurons come from pre-training: the pre-trained model beats a random one",
            "§5, A-T3",
            "mean top-neuron accuracy, pre-trained, random prompts",
            _nanmean(controls["random_prompt_mean"]),
            "mean top-neuron accuracy, random model",
            _nanmean(controls["random_model_mean"]),
        ),
    ]
    for method, summary in method_summaries.items():
        rows.append(
            _finding(
                f"{method} models also depend on the prompt-tuning skill neurons",
                "§5, A-F7/A-F8/A-F12/A-F13",
                f"mean area own order vs random ({method})",
                _nanmean(summary["own_area"]),
                "no effect",
                0.0,
            )
        )
    return pd.DataFrame(rows, columns=COLUMNS)
