"""Paper B's continual-learning claims (§6, Table 5, B-T5), decided by the findings
engine: each compares two methods' CL (Eq. 4: the mean test accuracy over an order's
tasks after its last stage), averaged over the configured orders and the training runs
(config ``paper_b.runs``: every method and per-task FT trained once per run, run ``r``
with seed + r), with the runs resampled as the top unit and every task's test samples
within them (the same draw for both methods, which test the same samples).

=========================================  ===========================================
claim                                      effect
=========================================  ===========================================
NCFT forgets less than SeqFT               CL(NCFT) - CL(SeqFT)
W-NCFT forgets less than SeqFT             CL(W-NCFT) - CL(SeqFT)
NCFT forgets less than SeqLoRA             CL(NCFT) - CL(SeqLoRA)
W-NCFT beats NCFT                          CL(W-NCFT) - CL(NCFT)
W-NCFT beats equal weights (ours)          CL(W-NCFT) - CL(W-NCFT, uniform weights)
NCFT stays below per-task FT               CL(per-task FT) - CL(NCFT)
W-NCFT stays below per-task FT             CL(per-task FT) - CL(W-NCFT)
=========================================  ===========================================

Per-task FT's "CL" is the mean over the order's tasks of each task's own model. W-NCFT
combines the stored neurons as Eq. 12 reads (``paper_b.continual.combine: literal``,
each stored neuron times its stage's weight: W-NCFT differs from NCFT on every stored
neuron; :mod:`skillneurons.paper_b.continual`), so "W-NCFT beats NCFT" compares two
different models whatever the sets' overlap. The uniform-weight control (ours) combines
the same stage snapshots the same way with equal weights
(:func:`skillneurons.paper_b.continual.uniform_stage_weights`): W-NCFT above it says
the similarity weighting helps, not the weighting of snapshots as such; with alike task
vectors Eq. 11's softmax at temperature 1 is itself near uniform, and this row may then
read negligible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.forgetting import RetentionSamples
from skillneurons.paper_b.runs import RUNS
from skillneurons.paper_b.tables import CONTINUAL_NAMES
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    Units,
    decide,
    every,
    unavailable,
)

RESAMPLED = "training runs > test samples of each task"


def _claim(
    key: str, claim: str, effect: str, paper_value: str, margin: float, basis: str
) -> Claim:
    return Claim(claim, "§6, B-T5", effect, RESAMPLED, paper_value, margin, basis, key)


def _half(high: float, low: float) -> tuple[float, str]:
    """Half the paper's Standard-order gap ``high - low`` (points) as a margin."""
    return (high - low) / 200, f"half the paper's effect ({high} vs {low}, Standard order)"


#: Smallest effect of interest of the uniform-weight control (ours; no paper number).
UNIFORM_MARGIN = (0.01, "smallest effect of interest: 1 point of CL (no paper number)")


#: (claim, the method that should score higher, the lower one).
CONTRASTS = (
    (_claim("ncft_vs_seqft", "neuron-level continual fine-tuning (NCFT) forgets less "
            "than sequential fine-tuning", "CL(NCFT) - CL(SeqFT), mean over orders",
            "71.3 vs 47.1 (Standard)", *_half(71.3, 47.1)), "ncft", "seqft"),
    (_claim("wncft_vs_seqft", "W-NCFT forgets less than sequential fine-tuning",
            "CL(W-NCFT) - CL(SeqFT), mean over orders", "73.3 vs 47.1 (Standard)",
            *_half(73.3, 47.1)),
     "wncft", "seqft"),
    (_claim("ncft_vs_seqlora", "NCFT forgets less than sequential LoRA fine-tuning (SeqLoRA)",
            "CL(NCFT) - CL(SeqLoRA), mean over orders", "71.3 vs 53.8 (Standard)",
            *_half(71.3, 53.8)),
     "ncft", "seqlora"),
    (_claim("wncft_vs_ncft", "weighting the stored neurons by task similarity (W-NCFT) beats NCFT",
            "CL(W-NCFT) - CL(NCFT), mean over orders", "73.3 vs 71.3; every order",
            *_half(73.3, 71.3)),
     "wncft", "ncft"),
    (_claim("wncft_vs_uniform", "weighting the stored neurons by task similarity "
            "(W-NCFT) beats weighting them equally (ours)",
            "CL(W-NCFT) - CL(W-NCFT, uniform weights), mean over orders",
            "(no paper has it; the control of W-NCFT > NCFT)",
            *UNIFORM_MARGIN),
     "wncft", "wncft_uniform"),
    (_claim("ncft_below_per_task", "NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(NCFT), mean over orders", "77.2 vs 71.3 (Standard)",
            *_half(77.2, 71.3)),
     "per_task", "ncft"),
    (_claim("wncft_below_per_task", "W-NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(W-NCFT), mean over orders", "77.2 vs 73.3 (Standard)",
            *_half(77.2, 73.3)),
     "per_task", "wncft"),
)  # fmt: skip


#: "In every order" (paper B, Table 5: W-NCFT beats NCFT in all 6 orders): each order
#: decided, an intersection-union test.
EVERY_ORDER = (
    (_claim("ncft_vs_seqft_every_order",
            "NCFT forgets less than sequential fine-tuning in every order",
            "per order CL(NCFT) - CL(SeqFT), each order decided (intersection-union)",
            "71.3 vs 47.1 (Standard mean)",
            *_half(71.3, 47.1)), "ncft", "seqft"),
    (_claim("wncft_vs_ncft_every_order", "W-NCFT beats NCFT in every order",
            "per order CL(W-NCFT) - CL(NCFT), each order decided (intersection-union)",
            "73.3 vs 71.3; every order", *_half(73.3, 71.3)), "wncft", "ncft"),
)  # fmt: skip
#: B-F4 (paper B-spec 18): NCFT and W-NCFT retain more than SeqFT at every stage.
RETENTION = tuple(
    (
        Claim(
            f"{name} retains more than sequential fine-tuning at every stage",
            "§6, B-F4",
            f"per order and stage j >= 2, FG_j({name}) - FG_j(SeqFT) (Eq. 5, a ratio; A_i "
            "per-task FT's accuracy), each decided (intersection-union)",
            RESAMPLED,
            "far above the baselines at every stage (Figure 4)",
            0.05,
            "smallest effect of interest: 5 points of retention (Figure 4 gives no number)",
            f"{method}_retention",
        ),
        method,
    )
    for name, method in (("NCFT", "ncft"), ("W-NCFT", "wncft"))
)


def _runs(results: Mapping[str, pd.DataFrame]) -> list[int]:
    """The training runs of the orders' results (their ``run`` column), in order."""
    return sorted({int(run) for frame in results.values() for run in frame["run"]})


def _final_correct(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, method: str, run: int
) -> list[dict[str, np.ndarray]]:
    """Per order, ``{eval_task: correct}`` of training run ``run`` after its last stage
    (per-task FT: each task's own model of that run)."""
    finals = []
    for frame in results.values():
        frame = frame[frame["run"] == run]
        last = frame["stage"].max()
        tasks = frame.loc[frame["stage"] == last, "eval_task"].unique()
        if method == "per_task":
            rows = per_task[(per_task["run"] == run) & per_task["eval_task"].isin(tasks)]
        else:
            rows = frame[(frame["method"] == method) & (frame["stage"] == last)]
        finals.append({row.eval_task: np.asarray(row.correct, bool) for row in rows.itertuples()})
    return finals


def continual_claims(
    results: Mapping[str, pd.DataFrame],
    per_task: pd.DataFrame,
    settings: BootstrapSettings,
    contrasts: Sequence = CONTRASTS,
) -> list[dict]:
    """The module docstring's rows: ``contrasts`` (the mean over orders),
    :data:`EVERY_ORDER`, :data:`RETENTION`. ``results``: per order, its SeqFT, SeqLoRA
    and NCFT files of every run concatenated (``run``, then
    :data:`skillneurons.paper_b.continual.COLUMNS`); ``per_task``: every task's per-task
    FT results of every run. An order's effect is the mean over the drawn runs."""
    if not results:
        claims = [claim for claim, *_ in (*contrasts, *EVERY_ORDER, *RETENTION)]
        return [unavailable(claim, "no continual-learning order") for claim in claims]
    runs = _runs(results)
    finals = {
        method: [_final_correct(results, per_task, method, run) for run in runs]
        for method in CONTINUAL_NAMES
    }
    sizes = Units(
        runs={RUNS: len(runs)},
        samples={
            f"{task}: test samples": len(correct)
            for order in finals["seqft"][0]
            for task, correct in order.items()
        },
    )

    def cl(method: str, indices: Mapping[str, np.ndarray]) -> np.ndarray:
        """Per drawn run and order, CL (Eq. 4) on the drawn test samples."""
        return np.array(
            [
                [
                    np.mean(
                        [c[indices[f"{task}: test samples"]].mean() for task, c in order.items()]
                    )
                    for order in finals[method][run]
                ]
                for run in indices[RUNS]
            ]
        )

    orders = list(results)
    rows = []
    for (claim, higher, lower), each_order in [
        *((contrast, False) for contrast in contrasts),
        *((contrast, True) for contrast in EVERY_ORDER),
    ]:
        missing = [
            m for m in (higher, lower) if any(not order for run in finals[m] for order in run)
        ]
        if missing:
            rows.append(unavailable(claim, f"no results for {missing}"))
            continue

        def gap(idx, h=higher, lo=lower) -> np.ndarray:
            """Per order, the CL gap averaged over the drawn runs."""
            return (cl(h, idx) - cl(lo, idx)).mean(axis=0)

        if not each_order:
            mean = lambda idx, gap=gap: float(gap(idx).mean())  # noqa: E731
            rows.append(decide(claim, mean, sizes, settings))
            continue
        parts = [
            (order, lambda idx, gap=gap, o=o: float(gap(idx)[o]), sizes)
            for o, order in enumerate(orders)
        ]
        rows.append(every(claim, parts, settings, unit="order"))
    return [*rows, *retention_claims(results, per_task, settings)]


def retention_claims(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, settings: BootstrapSettings
) -> list[dict]:
    """B-F4's claims (:data:`RETENTION`): per order and stage ``j >= 2``, FG_j (Eq. 5, a
    ratio: :meth:`~skillneurons.paper_b.forgetting.RetentionSamples.fg`, each run
    against its own per-task FT) of the method minus SeqFT's, the mean over the drawn
    runs; the effect is the smallest over orders and stages ("at every stage"), the runs
    and every task's test samples resampled (B-F4's bands resample the same:
    :func:`skillneurons.paper_b.tables.forgetting_intervals`)."""
    samples = RetentionSamples.of(results, per_task, ("seqft", "ncft", "wncft"))
    if not samples.orders or max(len(tasks) for tasks, _ in samples.orders.values()) < 2:
        return [unavailable(claim, "no order of two stages") for claim, _ in RETENTION]
    units = samples.units(list(samples.alone[0]))

    def gaps(method: str, indices) -> np.ndarray:
        """Per order and stage, the method's FG_j minus SeqFT's (mean over the runs)."""
        found = []
        for order in samples.orders:
            gap = samples.fg(order, method, indices) - samples.fg(order, "seqft", indices)
            found.append(gap.mean(axis=0))
        return np.concatenate(found)

    stages = [
        f"{order} stage {stage}"
        for order, (tasks, _) in samples.orders.items()
        for stage in range(2, len(tasks) + 1)
    ]
    rows = []
    for claim, method in RETENTION:
        absent = [m for m in (method, "seqft") if not samples.has(m)]
        if absent:
            rows.append(unavailable(claim, f"no results for {', '.join(absent)}"))
            continue
        parts = [
            (name, lambda i, m=method, p=p: float(gaps(m, i)[p]), units)
            for p, name in enumerate(stages)
        ]
        rows.append(every(claim, parts, settings, unit="stage", mean_row=False))
    return rows
