"""Paper B's findings table (B-findings): every experiment's claims and the A-vs-B claims
in one table, decided by the findings engine.

Each experiment's claims live with its tables, in its report:
:mod:`~skillneurons.paper_b.deactivation_report` (B-T1, B-F5a/b),
:mod:`~skillneurons.paper_b.neuron_training_report` (B-T2, B-F5c/d and their controls),
:mod:`~skillneurons.paper_b.comparison_report` (AB-T1, AB-F1),
:mod:`~skillneurons.paper_b.generalization_report` (B-F2, B-F6),
:mod:`~skillneurons.paper_b.overlap_report` (B-T8),
:mod:`~skillneurons.paper_b.controlled_overlap_report` (B-T9..B-T11),
:mod:`~skillneurons.paper_b.similarity_report` (B-F3, B-T4) and
:mod:`~skillneurons.paper_b.continual_report` (B-T5, B-F4). This module only puts their
rows in the table's order: part 1's (B-T1's and B-T2's claims, then B-F5's; the
generation tasks' the same after them), the A-vs-B claims, then §5's and §6's rows
(:func:`generalization_claims`, the B-F3 profiles and the continual claims, which the
findings script passes as ``more``). Holm runs within the primary family and within the
rest apart (:func:`skillneurons.reporting.findings.findings_frame`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from skillneurons.paper_b import deactivation_report, neuron_training_report
from skillneurons.paper_b.comparison_report import comparison_claims, curve_claims
from skillneurons.paper_b.controlled_overlap_report import controlled_claims
from skillneurons.paper_b.generalization_report import proportion_claims
from skillneurons.paper_b.overlap_report import Group, overlap_claims_per_pair
from skillneurons.paper_b.similarity_report import similarity_claim
from skillneurons.reporting.curves import TaskCurves
from skillneurons.reporting.findings import BootstrapSettings, findings_frame


def generation_claims(
    deactivation: pd.DataFrame, training: pd.DataFrame, settings: BootstrapSettings
) -> list[dict]:
    """B-T1's, B-T2's, B-F5b's, B-F5d's and its controls' claims on the generation
    tasks, each against paper B's random sets and (ours) the layer-matched ones: their
    ``deactivation`` results (the multi-task model's original, task and random rows)
    and ``training`` results (every task's zero-shot, task and random rows, each
    training tested on every task), each test sample scored by its ROUGE-L F1."""
    deactivated, trained = deactivation_report.GENERATION, neuron_training_report.GENERATION
    return [
        *deactivation_report.random_claims(deactivation, settings, deactivated),
        *neuron_training_report.random_claims(training, settings, trained),
        *deactivation_report.specificity_claims(deactivation, settings, deactivated),
        *neuron_training_report.specificity_claims(training, training, settings, trained),
    ]


def generalization_claims(
    results: pd.DataFrame,
    groups: Mapping[str, Group],
    overlap_proportions: Sequence[float],
    points: pd.DataFrame,
    settings: BootstrapSettings,
) -> list[dict]:
    """§5's rows, in this order: B-F2's and B-F6's
    (:func:`~skillneurons.paper_b.generalization_report.proportion_claims`), B-T8's for
    every pair of groups (:func:`~skillneurons.paper_b.overlap_report.overlap_claims_per_pair`),
    B-T9..B-T11's (:func:`~skillneurons.paper_b.controlled_overlap_report.controlled_claims`),
    then B-T4's
    (:func:`~skillneurons.paper_b.similarity_report.similarity_claim`). ``results`` holds
    every generalization result file (:mod:`skillneurons.paper_b.generalization`), told
    apart by their ``experiment`` and ``group`` columns; ``groups`` the groups' training
    and test tasks' task-neuron tables (``"cls"``, and ``"gen"`` where the model runs
    the generation tasks: claims for every pair), ``points`` B-T4's (model, test task)
    points."""
    return [
        *proportion_claims(results, settings),
        *overlap_claims_per_pair(groups, overlap_proportions, settings),
        *controlled_claims(results, settings),
        similarity_claim(points, settings),
    ]


def findings_table(
    deactivation: pd.DataFrame,
    training: pd.DataFrame,
    zero_shot: pd.DataFrame,
    agreements: Mapping[str, Sequence[Mapping[str, float]]],
    curves: Mapping[str, TaskCurves],
    settings: BootstrapSettings,
    generation: Mapping[str, pd.DataFrame] | None = None,
    more: Sequence[dict] = (),
    primary: Sequence[str] = (),
) -> pd.DataFrame:
    """Paper B's part-1 claims and the AB claims (the module docstring), one row each,
    then the rows ``more`` (§5's: :func:`generalization_claims`).

    ``deactivation`` holds B-T1's results (with ``original`` rows), ``training`` every
    task's B-T2 results, ``zero_shot`` the untrained model's; ``agreements`` (AB-T1,
    one per trial) and ``curves`` (AB-F1) are per task on paper A's prompt-tuned
    models; ``generation`` (where the model runs the generation tasks) the generation
    tasks' ``deactivation`` and ``training`` results (:func:`generation_claims`);
    ``primary`` the keys of the primary family (config ``findings.primary``,
    :data:`skillneurons.paper_b.registry.CLAIMS`): Holm runs within it and within the
    rest apart."""
    rows = [
        *deactivation_report.random_claims(deactivation, settings),
        *neuron_training_report.random_claims(training, settings),
        *deactivation_report.specificity_claims(deactivation, settings),
        *neuron_training_report.specificity_claims(training, zero_shot, settings),
        *([] if generation is None else generation_claims(**generation, settings=settings)),
        *comparison_claims(agreements, settings),
        *curve_claims(curves, settings),
        *more,
    ]
    return findings_frame(rows, settings.alpha, primary)
