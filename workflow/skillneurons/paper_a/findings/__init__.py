"""Paper A's findings: each claim of sections 4-5 decided by the findings engine.

Every claim is an effect, signed so that positive supports the claim, with a margin and
a hierarchical bootstrap interval (:mod:`skillneurons.reporting.findings`): prompt
trials are the training runs (the top level), random orders or draws nested in them,
test samples innermost. The effects and what is resampled, outermost first:

==========================================  =================================================
claim (paper A)                             effect; resampled
==========================================  =================================================
skill neurons as accurate as prompts        top neurons' test accuracy minus the prompt's,
(§4.1, A-T1)                                per trial and task; trials > tasks
prompts beat Avg./Max. (§4.1, A-F3)         held-out test accuracy of the neuron the
                                            prompts select on dev minus that of the
                                            neuron each baseline selects, mean over
                                            panels; trials > test samples (per panel)
top skill neurons matter (§4.2, A-F4):      area under the uniform random curve minus the
the paper's design                          area under the own-order curve, mean over
                                            evaluation tasks, at the paper's noise (sigma
                                            0.1 absolute, one draw per sample at every
                                            position); trials > random orders > test
                                            samples (per task)
... ours: two further designs               uniform and layer-matched random orders at
                                            the configured noise (1 neuron std)
same-type tasks correlate (§4.3, A-F5)      mean Spearman of same-type minus cross-type task
                                            pairs (layer means); tasks
same-type importance (§4.3, A-F6)           mean z-scored importance of same-type minus
                                            cross-type source tasks; trials > random orders
                                            > test samples
predictivity beats selectivity (App. H)     area under the selectivity-order curve minus the
                                            predictivity order's; trials > test samples
random label words agree (§4.4)             mean pairwise Spearman of the draws' orders
                                            minus the seed-only controls' (decides), and
                                            minus 0.87 (decided only above the noise
                                            floor); label-word draws
pre-training makes skill neurons (§5)       top-neuron test accuracy with random prompts,
                                            pre-trained minus random model; trials > test
                                            samples
other tuning methods use them (§5)          per method, area(uniform random) - area(own
                                            prompt-tuning order) on the adapter or BitFit
                                            models' curves at the configured noise
==========================================  =================================================

Areas are trapezoid areas under accuracy-vs-rate curves (a larger area: less accuracy
lost). The layer-matched control perturbs, at every rate, as many neurons of each
layer as the own order, at random within the layers: skill neurons concentrate in a
few layers, and a uniform random order would compare them with other layers too.

An approximation: the perturbed orders come from the ranking of all trials (Eq. 6's
mean over trials), which a draw of the trials does not recompute (that would need a
new perturbation sweep per draw); the curves of the drawn trials are recomputed. The
task-correlation claim recomputes Eq. 6 over the drawn trials. Claims over several
tasks keep the tasks fixed: the estimand is the mean (or contrast) over these tasks.

Each section's claims live in a module of this package: :mod:`.top_neurons` (§4.1),
:mod:`.perturbation` (§4.2 and App. H), :mod:`.task_relations` (§4.3),
:mod:`.label_words` (§4.4) and :mod:`.origin` (§5), over the area and accuracy gaps of
:mod:`.gaps`; :func:`findings_table` assembles their rows into the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.paper_a.findings.gaps import gap_claim
from skillneurons.paper_a.findings.label_words import label_words_claims
from skillneurons.paper_a.findings.origin import control_correct, method_claim, pretraining_claim
from skillneurons.paper_a.findings.perturbation import SELECTIVITY, TOP, TOP_PAPER, TOP_UNIFORM
from skillneurons.paper_a.findings.task_relations import correlation_claim, importance_claim
from skillneurons.paper_a.findings.top_neurons import baseline_claims, comparable_claim
from skillneurons.reporting.curves import task_curves
from skillneurons.reporting.findings import BootstrapSettings, findings_frame


def findings_table(
    perturbation: Mapping[str, pd.DataFrame],
    scores: Mapping[str, np.ndarray],
    controls: Mapping[str, Sequence[Mapping]],
    label_word_draws: Mapping[str, Sequence[np.ndarray]],
    methods: Mapping[str, Mapping[str, pd.DataFrame]],
    task_types: Mapping[str, str],
    settings: BootstrapSettings,
    label_word_controls: Mapping[str, Sequence[np.ndarray]] | None = None,
    accuracies: tuple[Sequence[Mapping], Sequence[Mapping]] = ((), ()),
    held_out: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    paper_design: Mapping[str, pd.DataFrame] | None = None,
    noise_floor: Mapping[str, float] | None = None,
    primary: Sequence[str] = (),
) -> pd.DataFrame:
    """Every claim of paper A's sections 4-5 on this run, one row each
    (:data:`skillneurons.reporting.findings.COLUMNS`), Holm-adjusted within the primary
    family and within the exploratory rest.

    ``perturbation`` maps each evaluation task to its perturbation file's rows;
    ``scores`` each task to its per-trial predictivity
    (:func:`.task_relations.trial_scores`); ``controls`` the settings ``random_prompt``
    and ``random_model`` to their per-trial top-neuron results; ``label_word_draws``
    each task to its random-label-word draws' scores (empty: the experiment is off) and
    ``label_word_controls`` to its seed-only controls'; ``methods`` each tuning method
    to its perturbation rows per evaluation task; ``accuracies`` every trial's
    prompt-tuning metrics and top-neuron results (:func:`.top_neurons.comparable_claim`;
    empty: the row is not measured); ``held_out`` the held-out correctness of the
    neurons the prompts and the Avg./Max. baselines select per task (subtask) panel
    (:func:`.top_neurons.held_out_panels`, :func:`.top_neurons.baseline_claims`);
    ``paper_design`` each evaluation task's perturbation file on the paper's design
    (:data:`.perturbation.TOP_PAPER`; empty: not measured); ``noise_floor`` §4.4's noise
    floor per task (:func:`.label_words.label_words_claims`); ``primary`` the keys of the
    primary family (config ``findings.primary``; :data:`skillneurons.paper_a.registry.CLAIMS`).
    """
    curves = {task: task_curves(frame) for task, frame in perturbation.items()}
    paper = {task: task_curves(frame) for task, frame in (paper_design or {}).items()}
    rows = [
        comparable_claim(*accuracies, settings),
        *baseline_claims(held_out or {}, settings),
        gap_claim(TOP_PAPER, paper, "random", settings),
        gap_claim(TOP_UNIFORM, curves, "random", settings),
        gap_claim(TOP, curves, LAYER_MATCHED, settings),
        correlation_claim(scores, task_types, settings),
        importance_claim(curves, task_types, settings),
        gap_claim(SELECTIVITY, curves, "selectivity", settings),
    ]
    if label_word_draws:
        rows += label_words_claims(
            label_word_draws, label_word_controls or {}, settings, noise_floor
        )
    rows.append(
        pretraining_claim(
            control_correct(controls["random_prompt"]),
            control_correct(controls["random_model"]),
            settings,
        )
    )
    for method, frames in methods.items():
        method_curves = {task: task_curves(frame) for task, frame in frames.items()}
        rows.append(gap_claim(method_claim(method), method_curves, "random", settings))
    return findings_frame(rows, settings.alpha, primary)
