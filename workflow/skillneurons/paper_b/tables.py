"""Paper B's tables from the experiments' results (B-T1, B-T2, the B-F5 matrices, AB-T1).

Results frames are :data:`skillneurons.paper_b.evaluation.COLUMNS`; accuracies are
shown in percent. Random rows are summarised over their draws (mean and sample std).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.reporting.stats import accuracy_summary, curve_area


def _accuracy(results: pd.DataFrame, condition: str, source: str, eval_task: str) -> list[float]:
    chosen = results[
        (results["condition"] == condition)
        & (results["source"] == source)
        & (results["eval_task"] == eval_task)
    ]
    return chosen["accuracy"].tolist()


def _random_summary(values: list[float]) -> tuple[float, float]:
    """Mean and sample std (NaN for one draw) of the random draws' accuracies, in %."""
    mean, std, _ = accuracy_summary(values)
    return 100 * mean, 100 * std


def deactivation_table(results: pd.DataFrame) -> pd.DataFrame:
    """B-T1 (B-T6): per task, the multi-task model's test accuracy (%) as trained, with
    random neurons deactivated (mean and std over draws) and with the task's neurons."""
    rows = []
    for task in dict.fromkeys(results["eval_task"]):
        random = _accuracy(results, "random", task, task)
        mean, std = _random_summary(random)
        rows.append(
            {
                "task": task,
                "original": 100 * _accuracy(results, "original", "", task)[0],
                "deactivate_random": mean,
                "deactivate_random_std": std,
                "deactivate_task": 100 * _accuracy(results, "task", task, task)[0],
                "random_draws": len(random),
            }
        )
    return pd.DataFrame(rows)


def training_table(results: pd.DataFrame, zero_shot: pd.DataFrame) -> pd.DataFrame:
    """B-T2 (B-T7): per task, zero-shot accuracy (%), after training random neurons
    (mean and std over draws) and after training the task's neurons, with both gains
    over zero-shot in points."""
    rows = []
    for task in dict.fromkeys(results["source"]):
        base = 100 * _accuracy(zero_shot, "zero_shot", "", task)[0]
        random = _accuracy(results, "random", task, task)
        mean, std = _random_summary(random)
        own = 100 * _accuracy(results, "task", task, task)[0]
        rows.append(
            {
                "task": task,
                "zero_shot": base,
                "train_random": mean,
                "train_random_std": std,
                "train_task": own,
                "gain_random": mean - base,
                "gain_task": own - base,
                "random_draws": len(random),
            }
        )
    return pd.DataFrame(rows)


def effect_matrix(
    results: pd.DataFrame, reference: Mapping[str, float], sign: float = 1.0
) -> pd.DataFrame:
    """B-F5: rows the task whose neurons were deactivated (or trained), columns the
    evaluated task; cell ``sign * (accuracy - reference[eval task])`` in points
    (deactivation: ``sign = -1`` and the trained model's accuracy, the drop; training:
    the gain over zero-shot)."""
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    matrix = pd.DataFrame(index=pd.Index(tasks, name="neurons_of"), columns=tasks, dtype=float)
    for source in tasks:
        for task in tasks:
            value = _accuracy(results, "task", source, task)[0]
            matrix.loc[source, task] = 100 * sign * (value - reference[task])
    return matrix.reset_index()


def reference_accuracies(results: pd.DataFrame, condition: str) -> dict[str, float]:
    """Per evaluated task, the accuracy of the ``condition`` rows (original, zero_shot)."""
    chosen = results[results["condition"] == condition]
    return dict(zip(chosen["eval_task"], chosen["accuracy"], strict=True))


def comparison_table(
    agreements: Mapping[str, Mapping], areas: Mapping[str, Mapping[str, float]]
) -> pd.DataFrame:
    """AB-T1: per task, the rank agreement of paper A's and paper B's neurons
    (:func:`skillneurons.paper_b.comparison.ranking_agreement`) and the areas under the
    AB-F1 curves (less area: more accuracy destroyed)."""
    rows = []
    for task, agreement in agreements.items():
        rows.append(
            {
                "task": task,
                "spearman": agreement["spearman"],
                "spearman_layer_mean": agreement["spearman_layer_mean"],
                "jaccard_top": agreement["jaccard"],
                "jaccard_chance": agreement["jaccard_chance"],
                "top_neurons": agreement["top_neurons"],
                **{f"area_{name}": value for name, value in areas[task].items()},
            }
        )
    return pd.DataFrame(rows)


def curve_areas_by_order(curves: pd.DataFrame, orders: Sequence[str]) -> dict[str, float]:
    """Mean area under each order's accuracy curve (random repeats averaged)."""
    areas = {}
    for order in orders:
        rows = curves[curves["order"] == order].groupby("rate")["accuracy"].mean()
        areas[order] = float(curve_area(rows.index.to_numpy(), rows.to_numpy()))
    return areas


def mean_row(frame: pd.DataFrame, label: str = "mean") -> pd.DataFrame:
    """``frame`` with a last row of its float columns' means (task ``label``); counts
    (integer columns) are left empty there."""
    numeric = frame.select_dtypes(include=[np.floating]).mean()
    return pd.concat(
        [frame, pd.DataFrame([{"task": label, **numeric.to_dict()}])], ignore_index=True
    )
