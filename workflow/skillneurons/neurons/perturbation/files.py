"""A task's trained trials perturbed and written as one perturbation file (paper A §4.2,
§5; Figures 4, 7, 11-13, 15).

:class:`TrialModel` is one trial to perturb (its classifier, evaluation split, noise
seed, ``a_bsl`` and activation stds); :func:`prompt_tuned_trials` loads a task's
prompt-tuned trials one at a time; :func:`perturb_trial` sweeps one trial
(:func:`skillneurons.neurons.perturbation.sweep.sweep_orders`) and
:func:`write_perturbation_file` every trial in the orders of
:func:`skillneurons.neurons.perturbation.orders.perturbation_orders`, as the file of
:mod:`skillneurons.neurons.perturbation.curve_table`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from skillneurons.infra.io import read_tensors
from skillneurons.models.encoding import EncodedSplit
from skillneurons.models.loading import LoadedModel
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.neurons.perturbation.curve_table import trial_curve_frame, write_curve_file
from skillneurons.neurons.perturbation.noise import (
    PerturbationSettings,
    noise_scale,
    positions_scale,
)
from skillneurons.neurons.perturbation.orders import NamedOrder, perturbation_orders
from skillneurons.neurons.perturbation.sweep import sweep_orders
from skillneurons.neurons.ranking import Ranking

LOG = logging.getLogger(__name__)


def perturb_trial(
    classifier: torch.nn.Module,
    split,
    orders: Sequence[NamedOrder],
    *,
    rates: Sequence[float],
    settings: Mapping[str, object],
    seed: int,
    batch_size: int,
    baseline=None,
    scale=None,
    eval_task: str,
    trial: int,
) -> pd.DataFrame:
    """Sweep every order and rate on one tuned trial: its rows of a perturbation file
    (:func:`trial_curve_frame`). ``settings`` is the config's perturbation block
    without the seed, ``seed`` the trial's noise seed, ``scale`` each neuron's std by
    the positions it was measured at (:func:`noise_scale`; the ``neuron_std`` unit
    reads the one measured at ``settings["positions"]``)."""
    perturbation = PerturbationSettings(**settings, seed=seed)
    LOG.info(
        "trial %d: %d orders x %d rates on %d test samples",
        trial,
        len(orders),
        len(rates),
        len(split),
    )
    table = sweep_orders(
        classifier,
        split,
        orders,
        rates,
        perturbation,
        classifier.pad_id,
        batch_size,
        baseline,
        positions_scale(scale, perturbation),
    )
    return trial_curve_frame(table, eval_task, trial, perturbation.kind)


@dataclass(frozen=True)
class TrialModel:
    """One trained trial to perturb: its classifier, the encoded evaluation split, the
    trial's noise seed (also the seed of its random orders) and, for the ``baseline``
    kind, its ``a_bsl``, for the ``neuron_std`` unit each neuron's activation std
    ``[layers, neurons]`` by the positions it was measured at (``"all"``,
    ``"prompt"``: :func:`noise_scale`)."""

    trial: int
    seed: int
    classifier: torch.nn.Module
    split: EncodedSplit
    baseline: np.ndarray | None = None
    scale: Mapping[str, np.ndarray] | None = None

    def perturb(
        self,
        orders: Sequence[NamedOrder],
        *,
        rates: Sequence[float],
        settings: Mapping[str, object],
        batch_size: int,
        eval_task: str,
    ) -> pd.DataFrame:
        """:func:`perturb_trial` on this trial, with its seed, baseline and scale."""
        return perturb_trial(
            self.classifier,
            self.split,
            orders,
            rates=rates,
            settings=settings,
            seed=self.seed,
            batch_size=batch_size,
            baseline=self.baseline,
            scale=self.scale,
            eval_task=eval_task,
            trial=self.trial,
        )


def prompt_tuned_trials(
    loaded: LoadedModel,
    split: EncodedSplit,
    prompts: Sequence[str],
    baselines: Sequence[str],
    trials: Sequence[int],
    seeds: Sequence[int],
) -> Iterator[TrialModel]:
    """One task's prompt-tuned trials to perturb, loaded one at a time: each trial's
    classifier from its prompt file, its ``a_bsl`` (Eq. 3) and activation stds (the unit
    of ``neuron_std``, :func:`noise_scale`) from its baseline file."""
    for trial, prompt, baseline_path, seed in zip(trials, prompts, baselines, seeds, strict=True):
        baseline = read_tensors(baseline_path)
        yield TrialModel(
            trial,
            seed,
            classifier_from_prompt_file(loaded, prompt),
            split,
            baseline["prompt"].numpy(),
            noise_scale(baseline),
        )


def write_perturbation_file(
    path: str,
    trials: Iterable[TrialModel],
    rankings: Mapping[str, Ranking],
    selectivity: np.ndarray | None,
    identity: Mapping[str, object],
    *,
    sample_idx: Sequence[int],
    rates: Sequence[float],
    settings: Mapping[str, object],
    layer_matched_orders: int,
    uniform_orders: int | None,
    scope: str,
    batch_size: int,
) -> None:
    """Sweep every trial in every order (:func:`perturbation_orders`) and rate, and write
    one evaluation task's perturbation file atomically as Parquet:
    ``results/{model}/perturbation/{eval_task}.parquet`` (or a tuning method's).

    Rows are :func:`perturb_trial`'s for every trial; ``layer_matched_orders`` and
    ``uniform_orders`` (config ``perturbation.*``) count the random orders of each kind,
    and the layer-matched ones follow the evaluation task's own order. ``identity``
    names the file (``model``, ``eval_task`` and e.g. ``method``); the metadata also
    holds the evaluated samples (``sample_idx``: their ``idx`` in the split, the order
    of every row's ``correct``), the rates, the perturbation settings, the trials with
    their noise seeds and the ranking scope. ``trials`` may be a generator that loads
    each model in turn.
    """
    eval_task = str(identity["eval_task"])
    matched_to = eval_task if eval_task in rankings else None
    frames, seeds = [], []
    for model in trials:
        orders = perturbation_orders(
            rankings,
            selectivity,
            layer_matched_orders,
            model.seed,
            scope,
            matched_to,
            uniform_orders,
        )
        frames.append(
            model.perturb(
                orders, rates=rates, settings=settings, batch_size=batch_size, eval_task=eval_task
            )
        )
        seeds.append(model.seed)
    frame = pd.concat(frames, ignore_index=True)
    metadata = {
        **identity,
        "samples": len(sample_idx),
        "sample_idx": [int(i) for i in sample_idx],
        "rates": list(rates),
        "settings": dict(settings),
        "trials": sorted(int(trial) for trial in frame["trial"].unique()),
        "seeds": seeds,
        "scope": scope,
    }
    write_curve_file(path, frame, metadata)
