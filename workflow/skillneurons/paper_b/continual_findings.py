"""Paper B's continual-learning claims (§6, Table 5, B-T5), decided by the findings
engine: each compares two methods' CL (Eq. 4: the mean test accuracy over an order's
tasks after its last stage), averaged over the configured orders, with every task's
test samples resampled (the same draw for both methods, which test the same samples).

=========================================  ===========================================
claim                                      effect
=========================================  ===========================================
NCFT forgets less than SeqFT               CL(NCFT) - CL(SeqFT)
W-NCFT forgets less than SeqFT             CL(W-NCFT) - CL(SeqFT)
NCFT forgets less than SeqLoRA             CL(NCFT) - CL(SeqLoRA)
W-NCFT beats NCFT                          CL(W-NCFT) - CL(NCFT)
W-NCFT beats uniform-weight averaging      CL(W-NCFT) - CL(W-NCFT, uniform weights)
NCFT stays below per-task FT               CL(per-task FT) - CL(NCFT)
W-NCFT stays below per-task FT             CL(per-task FT) - CL(W-NCFT)
=========================================  ===========================================

Per-task FT's "CL" is the mean over the order's tasks of each task's own model. The
uniform-weight control (ours) combines the same stage snapshots as W-NCFT with equal
weights (:func:`skillneurons.paper_b.continual.uniform_stage_weights`): W-NCFT above it
says the similarity weighting helps, not the averaging of snapshots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.findings import ONE_TRAINING
from skillneurons.reporting.findings import BootstrapSettings, Claim, Units, decide, unavailable

RESAMPLED = "test samples of each task"


def _claim(claim: str, effect: str, paper_value: str, margin: float, basis: str) -> Claim:
    return Claim(claim, "§6, B-T5", effect, RESAMPLED, paper_value, margin, basis)


def _half(high: float, low: float) -> tuple[float, str]:
    """Half the paper's Standard-order gap ``high - low`` (points) as a margin."""
    return (high - low) / 200, f"half the paper's effect ({high} vs {low}, Standard order)"


#: Smallest effect of interest of the uniform-weight control (ours; no paper number).
UNIFORM_MARGIN = (0.01, "smallest effect of interest: 1 point of CL (no paper number)")


#: (claim, the method that should score higher, the lower one).
CONTRASTS = (
    (_claim("neuron-level continual fine-tuning (NCFT) forgets less than sequential "
            "fine-tuning", "CL(NCFT) - CL(SeqFT), mean over orders",
            "71.3 vs 47.1 (Standard)", *_half(71.3, 47.1)), "ncft", "seqft"),
    (_claim("W-NCFT forgets less than sequential fine-tuning",
            "CL(W-NCFT) - CL(SeqFT), mean over orders", "73.3 vs 47.1 (Standard)",
            *_half(73.3, 47.1)),
     "wncft", "seqft"),
    (_claim("NCFT forgets less than sequential LoRA fine-tuning (SeqLoRA)",
            "CL(NCFT) - CL(SeqLoRA), mean over orders", "71.3 vs 53.8 (Standard)",
            *_half(71.3, 53.8)),
     "ncft", "seqlora"),
    (_claim("weighting the stored neurons by task similarity (W-NCFT) beats NCFT",
            "CL(W-NCFT) - CL(NCFT), mean over orders", "73.3 vs 71.3; every order",
            *_half(73.3, 71.3)),
     "wncft", "ncft"),
    (_claim("weighting the stored neurons by task similarity (W-NCFT) beats averaging "
            "them with equal weights", "CL(W-NCFT) - CL(W-NCFT, uniform weights), mean "
            "over orders", "(no paper has it; the control of W-NCFT > NCFT)",
            *UNIFORM_MARGIN),
     "wncft", "wncft_uniform"),
    (_claim("NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(NCFT), mean over orders", "77.2 vs 71.3 (Standard)",
            *_half(77.2, 71.3)),
     "per_task", "ncft"),
    (_claim("W-NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(W-NCFT), mean over orders", "77.2 vs 73.3 (Standard)",
            *_half(77.2, 73.3)),
     "per_task", "wncft"),
)  # fmt: skip


def _final_correct(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, method: str
) -> list[dict[str, np.ndarray]]:
    """Per order, ``{eval_task: correct}`` after its last stage (per-task FT: each
    task's own model)."""
    finals = []
    for frame in results.values():
        last = frame["stage"].max()
        tasks = frame.loc[frame["stage"] == last, "eval_task"].unique()
        if method == "per_task":
            rows = per_task[per_task["eval_task"].isin(tasks)]
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
    """The module docstring's rows. ``results``: per order, its SeqFT, SeqLoRA and NCFT files
    concatenated (:data:`skillneurons.paper_b.continual.COLUMNS`); ``per_task``: every
    task's per-task FT results."""
    if not results:
        return [unavailable(claim, "no continual-learning order") for claim, *_ in contrasts]
    finals = {
        method: _final_correct(results, per_task, method)
        for method in ("seqft", "seqlora", "ncft", "wncft", "wncft_uniform", "per_task")
    }
    sizes = Units(
        runs=ONE_TRAINING,
        samples={
            f"{task}: test samples": len(correct)
            for order in finals["seqft"]
            for task, correct in order.items()
        },
    )

    def cl(method: str, indices: Mapping[str, np.ndarray]) -> float:
        scores = [
            np.mean(
                [
                    correct[indices[f"{task}: test samples"]].mean()
                    for task, correct in order.items()
                ]
            )  # fmt: skip
            for order in finals[method]
        ]
        return float(np.mean(scores))

    rows = []
    for claim, higher, lower in contrasts:
        missing = [m for m in (higher, lower) if any(not order for order in finals[m])]
        if missing:
            rows.append(unavailable(claim, f"no results for {missing}"))
            continue
        rows.append(
            decide(
                claim, lambda idx, h=higher, lo=lower: cl(h, idx) - cl(lo, idx), sizes, settings
            )
        )
    return rows
