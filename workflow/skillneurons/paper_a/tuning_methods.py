"""Adapter-based tuning and BitFit on the verbalizer classifier (paper A, §5, appendix D).

Paper A asks whether the skill neurons found with prompt tuning also matter for
tuning methods that keep neuron weights fixed: Houlsby adapters
(:mod:`skillneurons.models.adapters`) and BitFit (Ben-Zaken et al., 2022: only bias terms
are trained). Both are trained here as a :class:`~skillneurons.models.prompted.PromptedClassifier`
with **no soft prompts**: the input is ``[MASK] <text>`` and the label is read at the
``[MASK]`` with the same verbalizer (as the original code's adapter and BitFit models,
which scored the label words at position 0 without prompts). Only the trainable
parameters differ between methods, so the one loop :func:`skillneurons.models.training.train`
trains them all:

``adapter``
    the :class:`~skillneurons.models.adapters.HoulsbyAdapters` parameters (``adapters.*``);
``bitfit``
    every bias of the backbone's encoder (attention, FFN and LayerNorm biases; the
    parameters named ``*.bias`` of ``backbone.base_model``). An MLM head's biases are
    not trained: its label-word biases would learn the class prior directly.

Without soft prompts the neurons are perturbed at every input position (§5's curves use
the prompt-tuning orders on these models).

Weights file ``results/{model}/tuning_methods/{method}/{task}/trial{trial}/weights.safetensors``:
the trainable parameters only, under their names in the classifier, with the method,
label words and settings as metadata (:func:`write_tuned`, :func:`load_method_classifier`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from skillneurons.infra.io import read_tensor_metadata, read_tensors, stable_hash, write_tensors
from skillneurons.models.adapters import HoulsbyAdapters
from skillneurons.models.encoding import EncodedSplit, encode_frame
from skillneurons.models.loading import LoadedModel, load_model
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.training import (
    TrainingSettings,
    load_trainable_state,
    majority_rate,
    result_metrics,
    train,
    trainable_state,
)
from skillneurons.neurons.activations import (
    activation_moments,
    input_token_activations,
    position_std,
)
from skillneurons.neurons.perturbation.files import TrialModel
from skillneurons.paper_a.prompt_tuning import prompt_tuning_table

METHODS = ("adapter", "bitfit")


def bitfit_parameters(classifier: PromptedClassifier) -> list[torch.nn.Parameter]:
    """The encoder's bias terms: parameters named ``*.bias`` (or ``bias``) of
    ``classifier.backbone.base_model``."""
    encoder = classifier.backbone.base_model
    return [
        parameter
        for name, parameter in encoder.named_parameters()
        if name == "bias" or name.endswith(".bias")
    ]


def method_classifier(
    loaded: LoadedModel,
    method: str,
    label_words: Sequence[str],
    *,
    adapter_size: int,
    adapter_init_std: float,
    seed: int = 0,
) -> PromptedClassifier:
    """A ``[MASK] <text>`` verbalizer classifier whose trainable parameters are ``method``'s.

    Every other parameter (the backbone's, the empty soft prompt) is frozen. For
    ``"adapter"`` the adapters become the submodule ``classifier.adapters``, initialised
    with ``seed``.
    """
    if method not in METHODS:
        raise ValueError(f"tuning method {method!r} is unknown; known methods: {METHODS}")
    classifier = PromptedClassifier(loaded, label_words, prompt_length=0, seed=seed)
    classifier.prompts.requires_grad_(False)
    if method == "adapter":
        classifier.adapters = HoulsbyAdapters(
            classifier.backbone, adapter_size, adapter_init_std, seed
        )
    else:
        biases = bitfit_parameters(classifier)
        if not biases:
            raise ValueError(
                f"BitFit trains bias terms, and {type(loaded.model).__name__} has none "
                "(Llama-family models have no biases); drop bitfit from "
                "tuning_methods.methods for this model"
            )
        for parameter in biases:
            parameter.requires_grad_(True)
    return classifier


def train_method(
    loaded: LoadedModel,
    splits: Mapping[str, pd.DataFrame],
    *,
    method: str,
    label_words: Sequence[str],
    settings: Mapping[str, object],
    max_length: int,
    seed: int,
    progress: bool = True,
) -> tuple[PromptedClassifier, dict]:
    """Train one trial of ``method`` on a task; return the classifier and its metrics.

    ``splits`` maps train/dev/test to split frames; ``settings`` is the config's
    ``tuning_methods`` block (``learning_rate`` per method, ``batch_size``,
    ``max_steps``, ``eval_every``, ``patience``, ``adapter_size``,
    ``adapter_init_std``); ``seed`` seeds the adapter initialisation and the data order.
    The metrics hold the dev curve, best step, dev and test accuracy (whole test
    split), the test majority-class rate and the number of trained parameters.
    """
    classifier = method_classifier(
        loaded,
        method,
        label_words,
        adapter_size=settings["adapter_size"],
        adapter_init_std=settings["adapter_init_std"],
        seed=seed,
    )
    encoded = {name: encode_frame(loaded, frame, max_length) for name, frame in splits.items()}
    training = TrainingSettings.from_config(
        settings, seed, learning_rate=settings["learning_rate"][method]
    )
    pad_id = classifier.pad_id
    result = train(
        classifier, encoded["train"], encoded["dev"], training, pad_id, progress=progress
    )
    metrics = {
        "method": method,
        "label_words": list(label_words),
        "seed": seed,
        "trained_parameters": sum(v.numel() for v in trainable_state(classifier).values()),
        **result_metrics(classifier, result, encoded["test"], training.eval_batch_size, pad_id),
        "test_majority_rate": majority_rate(encoded["test"].labels),
        "settings_hash": stable_hash({"settings": dict(settings), "method": method}),
    }
    return classifier, metrics


def write_tuned(path: str, classifier: PromptedClassifier, metadata: Mapping[str, object]) -> None:
    """Save the trainable parameters (only) with ``metadata`` as safetensors."""
    meta = {**metadata, "label_words": classifier.label_words}
    write_tensors(path, trainable_state(classifier), meta)


def load_method_classifier(
    model: Mapping[str, object], weights_path: str, device: torch.device | str = "cpu"
) -> tuple[LoadedModel, PromptedClassifier]:
    """Rebuild a classifier trained by :func:`method_classifier` from its weights file.

    ``model`` is the model's load settings (:func:`skillneurons.models.loading.load_model`).
    """
    meta = read_tensor_metadata(weights_path)
    loaded = load_model(**model)
    classifier = method_classifier(
        loaded,
        meta["method"],
        meta["label_words"],
        adapter_size=meta["adapter_size"],
        adapter_init_std=meta["adapter_init_std"],
    )
    state = read_tensors(weights_path)
    expected = set(trainable_state(classifier))
    if set(state) != expected:
        raise ValueError(
            f"{weights_path}: tensors {sorted(set(state) ^ expected)[:5]} do not match a "
            f"{meta['method']} classifier"
        )
    load_trainable_state(classifier, state)
    return loaded, classifier.to(device)


def input_moments(
    classifier: PromptedClassifier,
    split: EncodedSplit,
    batch_size: int,
    max_samples: int | None = None,
    *,
    seed: int,
    name: str = "the training split",
) -> tuple[np.ndarray, np.ndarray]:
    """``a_bsl`` and the activation std of a model without soft prompts, over a seeded,
    label-stratified draw of ``max_samples`` training rows (``seed``; ``name`` names the
    split in the error of a draw that misses a class): the training-set mean (Eq. 3) of
    each sample's mean activation over its input tokens
    (:func:`skillneurons.neurons.activations.input_token_activations`), float32
    ``[layers, 1, neurons]``, the ``baseline`` perturbation kind at every position; and
    each neuron's std over every position (:func:`position_std`), float32 ``[layers,
    neurons]``, the unit of ``neuron_std`` noise, which these models get at every
    position: the std is measured where the noise lands."""
    options = {"max_samples": max_samples, "seed": seed, "name": name}
    mean, _ = activation_moments(
        classifier, split, batch_size, reduce=input_token_activations, **options
    )
    std = position_std(classifier, split, batch_size, **options)
    return mean[:, :1].numpy(), std.numpy()


def method_trials(
    model: Mapping[str, object],
    weights: Sequence[str],
    trials: Sequence[int],
    seeds: Sequence[int],
    test: pd.DataFrame,
    train: pd.DataFrame,
    *,
    device: torch.device | str,
    max_length: int,
    batch_size: int,
    baseline_samples: int | None,
    subset_seed: int,
    task: str = "the task",
) -> Iterator[TrialModel]:
    """Each trained trial of a method, loaded in turn, ready to perturb (paper A, §5).

    ``weights`` are the trials' weights files; ``test`` the evaluation samples; ``train``
    the training split of ``task``, whose seeded (``subset_seed``), label-stratified draw
    of ``baseline_samples`` rows gives ``a_bsl`` and each neuron's std over every
    position (:func:`input_moments`; these models are perturbed at every position).
    """
    name = f"{task}/train (activations.baseline_samples)"
    for trial, path, seed in zip(trials, weights, seeds, strict=True):
        loaded, classifier = load_method_classifier(model, path, device)
        encoded = encode_frame(loaded, train, max_length)
        baseline, std = input_moments(
            classifier, encoded, batch_size, baseline_samples, seed=subset_seed, name=name
        )
        split = encode_frame(loaded, test, max_length)
        yield TrialModel(trial, seed, classifier, split, baseline, {"all": std})


def accuracy_table(metrics: Sequence[Mapping[str, object]]) -> pd.DataFrame:
    """Test accuracy of every method and task, mean ± std over trials.

    ``metrics`` are the trials' metrics (with ``method``, ``task``, ``test_accuracy``,
    ``test_majority_rate``). Columns: method, then those of
    :func:`skillneurons.paper_a.prompt_tuning.prompt_tuning_table`, and ``margin`` = mean minus
    the majority-class rate (how clearly the trained model beats the majority class).
    """
    frame = pd.DataFrame(list(metrics))
    parts = []
    for method, group in frame.groupby("method", sort=False):
        table = prompt_tuning_table(group.to_dict("records"))
        table.insert(0, "method", method)
        table["margin"] = table["mean"] - table["majority"]
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


def average_importance(importance: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Figure 8 of paper A: neuronal importance averaged over tuning methods.

    ``importance`` maps method -> its :func:`skillneurons.paper_a.importance.neuronal_importance`
    table. Returns columns ``eval_task``, ``source_task``, ``area`` and ``importance``
    (means over methods of the area and of the z-scored importance) and one
    ``importance_{method}`` column per method.
    """
    frames = [table.assign(method=method) for method, table in importance.items()]
    combined = pd.concat(frames, ignore_index=True)
    keys = ["eval_task", "source_task"]
    mean = combined.groupby(keys, sort=False)[["area", "importance"]].mean().reset_index()
    for method, table in importance.items():
        column = table[[*keys, "importance"]].rename(
            columns={"importance": f"importance_{method}"}
        )
        mean = mean.merge(column, on=keys, how="left")
    return mean
