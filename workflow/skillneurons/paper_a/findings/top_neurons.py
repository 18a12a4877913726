"""§4.1's claims: the top skill neurons are about as accurate as prompt tuning (Table
1, A-T1), and prompts find more predictive neurons than the Avg. and Max. input-token
baselines (Figure 3, A-F3), on held-out samples."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from skillneurons.paper_a.findings.gaps import accuracy_gap
from skillneurons.paper_a.skill_neurons import SELECTIONS, panel_name
from skillneurons.reporting.findings import (
    EQUIVALENCE,
    BootstrapSettings,
    Claim,
    Units,
    decide,
    unavailable,
)

COMPARABLE = Claim(
    "the top skill neurons are about as accurate as prompt tuning",
    "§4.1, A-T1",
    "top skill neuron(s)' test accuracy - prompt tuning's, mean over trials and tasks "
    "(comparable: inside the margin, as the paper finds; not comparable: beyond it)",
    "trials (each trial's own top neuron against its own prompt; the tasks fixed)",
    "comparable on every task (Table 1: within about 1 point)",
    margin=0.03,
    margin_basis="smallest effect of interest: 3 points of accuracy (Table 1's gaps are "
    "within about 1 point)",
    key="comparable",
    kind=EQUIVALENCE,
)
#: A-F3's baselines (§4.1): activations averaged / maxed over the input tokens.
BASELINES = {"input_avg": "Avg.", "input_max": "Max."}


def baseline_claim(name: str) -> Claim:
    return Claim(
        f"prompts find more predictive neurons than the {name} input-token baseline",
        "§4.1, A-F3/A-F9",
        "held-out test accuracy of the neuron selected on dev with prompts (best layer, "
        f"prompt token, neuron) - of the neuron selected with {name} over the input "
        "tokens (best neuron), each with its dev sign, mean over trials and tasks "
        "(subtasks)",
        "test samples of each task (subtask), trials (selected on dev, scored on test)",
        "Avg. and Max. hardly find highly-predictive neurons (Figure 3)",
        margin=0.05,
        margin_basis="smallest effect of interest: 0.05 of accuracy (Figure 3 is a "
        "histogram, no number)",
        key="prompts_vs_avg" if name == "Avg." else "prompts_vs_max",
    )


def baseline_claims(
    held_out: Mapping[str, Mapping[str, np.ndarray]], settings: BootstrapSettings
) -> list[dict]:
    """A-F3's two rows (:func:`baseline_claim`), on held-out samples.

    ``held_out`` maps each task (or subtask) panel to its selections' correctness,
    bool ``[trials, test samples]`` (:func:`held_out_panels`): ``max`` for the neuron
    the prompts select on dev, and one per key of :data:`BASELINES`. The effect is the
    mean over panels of the prompts' accuracy minus the baseline's on the drawn trials
    and test samples; trials > each panel's test samples resampled (crossed: the same
    samples under every trial). Comparing the selections on the dev samples that chose
    them would favour the prompts, which pick the max of ``tokens`` times more cells.
    """
    if not held_out:
        return [
            unavailable(baseline_claim(name), "no held-out selections")
            for name in BASELINES.values()
        ]
    prompts = {panel: values["max"] for panel, values in held_out.items()}
    return [
        accuracy_gap(
            baseline_claim(name),
            prompts,
            {panel: values[key] for panel, values in held_out.items()},
            settings,
        )
        for key, name in BASELINES.items()
    ]


def held_out_panels(results: Sequence[Mapping]) -> dict[str, dict[str, np.ndarray]]:
    """Per task (or subtask) panel, each selection's held-out correctness, bool
    ``[trials, samples]`` in trial order, from the top-neuron results' ``held_out``
    entries (:func:`skillneurons.paper_a.skill_neurons.held_out_correct`)."""
    by_task: dict[str, list[Mapping]] = {}
    for result in sorted(results, key=lambda r: (r["task"], int(r["trial"]))):
        by_task.setdefault(result["task"], []).append(result["held_out"])
    panels = {}
    for task, trials in by_task.items():
        for group, first in trials[0].items():
            panel = panel_name(task, group)
            if any(trial[group]["test_idx"] != first["test_idx"] for trial in trials):
                raise ValueError(f"panel {panel!r}: trials were scored on different test samples")
            panels[panel] = {
                key: np.array([trial[group][key]["test_correct"] for trial in trials], dtype=bool)
                for key in SELECTIONS
            }
    return panels


def comparable_claim(
    prompt_metrics: Sequence[Mapping], neuron_results: Sequence[Mapping], settings
) -> dict:
    """:data:`COMPARABLE` (§4.1, Table 1): per trial and task, the top skill neuron(s)'
    test accuracy minus the prompt's (``prompt_metrics``: each trial's prompt-tuning
    metrics; ``neuron_results``: each trial's top-neuron results, both in trial order
    per task); trials and tasks resampled (crossed)."""
    tasks = list(dict.fromkeys(m["task"] for m in prompt_metrics))

    def accuracies(entries, task):
        return [float(e["test_accuracy"]) for e in entries if e["task"] == task]

    pairs = [(accuracies(neuron_results, t), accuracies(prompt_metrics, t)) for t in tasks]
    if not tasks or len({len(a) for pair in pairs for a in pair}) != 1:
        return unavailable(COMPARABLE, "prompt tuning and skill neurons differ in trials")
    matrix = np.array([np.subtract(*pair) for pair in pairs]).T  # [trials, tasks]
    units = Units(runs={"trials": matrix.shape[0]}, fixed={"tasks": matrix.shape[1]})
    return decide(COMPARABLE, _crossed_mean(matrix), units, settings)


def _crossed_mean(matrix: np.ndarray):
    """The statistic: the mean of ``matrix[trials, tasks]`` over the drawn trials and
    tasks."""
    return lambda indices: float(matrix[np.ix_(indices["trials"], indices["tasks"])].mean())
