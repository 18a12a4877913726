"""§5's claims on where skill neurons come from: a pre-trained model has them and a
randomly initialised one does not (Table 3, A-T3), and models tuned by other methods
(adapters, BitFit) depend on the prompt-tuning skill neurons too (Figures 7, 8, 12, 13)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from skillneurons.paper_a.findings.gaps import accuracy_gap
from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN
from skillneurons.reporting.findings import BootstrapSettings, Claim, unavailable

PRETRAINING = Claim(
    "skill neurons come from pre-training: the pre-trained model beats a random one",
    "§5, A-T3",
    "top-neuron test accuracy with random prompts, pre-trained - random model, task mean",
    "test samples of each task, trials",
    "e.g. SST-2 86.9 vs 55.2 (Table 3)",
    margin=0.15,
    margin_basis="half the paper's effect (Table 3: SST-2 86.9 vs 55.2, 31.7 points)",
    key="pretraining",
)


def method_claim(method: str) -> Claim:
    return Claim(
        f"{method} models also depend on the prompt-tuning skill neurons",
        "§5, A-F7/A-F8/A-F12/A-F13 (the paper's uniform random control at the configured noise)",
        f"area(uniform random) - area(own prompt-tuning order), {method} models, "
        "mean over evaluation tasks; noise perturbation.sigma in perturbation.unit",
        "test samples of each task, trials, random orders",
        "own order below random (Figures 7, 12, 13)",
        margin=AREA_MARGIN,
        margin_basis=AREA_BASIS,
        key=method,
    )


def pretraining_claim(
    pretrained: Mapping[str, np.ndarray],
    random_model: Mapping[str, np.ndarray],
    settings: BootstrapSettings,
) -> dict:
    """Pre-trained minus random-model top-neuron test accuracy (Table 3), with random
    prompts; each maps a task to bool ``[trials, samples]`` (the same test samples)."""
    tasks = [task for task in pretrained if task in random_model]
    if not tasks:
        return unavailable(PRETRAINING, "no control results")
    common = {task: pretrained[task] for task in tasks}
    return accuracy_gap(PRETRAINING, common, random_model, settings)


def control_correct(results: Sequence[Mapping]) -> dict[str, np.ndarray]:
    """Per task, bool ``[trials, samples]`` from per-trial top-neuron results (JSON)."""
    by_task: dict[str, list] = {}
    for result in sorted(results, key=lambda r: (r["task"], int(r["trial"]))):
        by_task.setdefault(result["task"], []).append(result)
    correct = {}
    for task, rows in by_task.items():
        first = rows[0]["test_idx"]
        if any(row["test_idx"] != first for row in rows):
            raise ValueError(f"task {task!r}: trials were scored on different test samples")
        correct[task] = np.array([row["test_correct"] for row in rows], dtype=bool)
    return correct
