"""Finding a task's skill neurons from its activation dumps (paper A, §3 and Table 1).

Glue between the dumps (:mod:`skillneurons.neurons.activations`) and the predictivity maths
(:mod:`skillneurons.neurons.predictivity`):

- :func:`subtask_groups` turns a task's dev split (and, for three-way tasks, its
  balanced binary subtasks, §3.2) into the sample groups whose labels predictivity is
  measured against;
- :func:`trial_accuracies` streams one dump once and returns Eq. 4's accuracy of
  every (layer, token, neuron) for every group;
- :func:`trial_predictivities` turns one trial's accuracies into every definition of
  predictivity (Eq. 5, appendix G's "mean" and "positive", Figure 3's "Avg."/"Max."
  input-token baselines), and :func:`task_ranking` ranks the trial means (Eq. 6);
  :func:`trial_ranking` ranks one trial's predictivity alone (the ranking on that
  trial's own model, as the A-vs-B comparison reads it);
- :func:`top_neuron_correct` evaluates a trial's top skill neuron on test (Table 1).

Predictivity file ``results/{model}/predictivity/{task}.safetensors``: float32
``[layers, neurons]`` tensors named ``{definition}/{group}/trial{t}`` for definition
in :data:`DEFINITIONS` and group ``task`` (binary tasks) or a subtask name, plus int64
``best_token/{group}/trial{t}`` (Eq. 6's best prompt token).
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skillneurons.infra.io import read_arrays, write_arrays, write_frame_parquet
from skillneurons.neurons.activation_dump import iter_activations
from skillneurons.neurons.predictivity import (
    PredictivityAccumulator,
    combine_trials,
    neuron_correct,
    neuron_predictivity,
    neuron_sign,
)
from skillneurons.neurons.ranking import Ranking, ranking_table, tie_key
from skillneurons.reporting.stats import accuracy_summary

LOG = logging.getLogger(__name__)

#: Predictivity definitions stored per trial: the paper's (max over prompt tokens of
#: max(Acc, 1-Acc)), appendix G's alternatives, and Figure 3's input-token baselines.
DEFINITIONS = ("max", "mean", "positive", "input_avg", "input_max")
BINARY_GROUP = "task"


@dataclass(frozen=True)
class SampleGroup:
    """Dev samples of one binary (sub)task: their ``idx`` and binary labels."""

    idx: np.ndarray
    labels: np.ndarray


def subtask_groups(
    dev: pd.DataFrame, subtasks: Mapping[str, pd.DataFrame] | None = None
) -> dict[str, SampleGroup]:
    """Groups to measure predictivity on: the task itself when binary, else its subtasks.

    ``dev`` is the task's dev split; ``subtasks`` maps subtask name -> that subtask's
    dev split (whose ``idx`` point into ``dev``), in the order the subtasks take turns.
    """
    if subtasks:
        return {
            name: SampleGroup(frame["idx"].to_numpy(np.int64), frame["label"].to_numpy(np.int64))
            for name, frame in subtasks.items()
        }
    labels = dev["label"].to_numpy(np.int64)
    if set(np.unique(labels)) - {0, 1}:
        raise ValueError("a task with more than two labels needs its binary subtasks")
    return {BINARY_GROUP: SampleGroup(dev["idx"].to_numpy(np.int64), labels)}


def trial_accuracies(
    dump_path: str, baseline: np.ndarray, groups: Mapping[str, SampleGroup]
) -> dict[str, np.ndarray]:
    """Eq. 4 for every group: accuracy ``[layers, tokens, neurons]`` of ``a > a_bsl``.

    Streams the dump's row groups once; rows whose ``idx`` is not in a group are
    skipped for it, and a group's labels replace the dump's (subtask labels). Raises
    when no activation differs between samples: then every neuron's predictivity is
    the majority rate and a ranking would order ties (e.g. soft prompts that cannot
    see the input).
    """
    accumulators = {name: PredictivityAccumulator(baseline) for name in groups}
    lookups = {name: pd.Series(group.labels, index=group.idx) for name, group in groups.items()}
    first, varies = None, None
    for batch in iter_activations(dump_path):
        if first is None and len(batch):
            first = batch.activations[0].copy()
            varies = np.zeros(first.shape, dtype=bool)
        if len(batch):
            varies |= (batch.activations != first).any(axis=0)
        for name, lookup in lookups.items():
            member = np.isin(batch.idx, lookup.index.to_numpy())
            if member.any():
                labels = lookup.loc[batch.idx[member]].to_numpy()
                accumulators[name].update(batch.activations[member], labels)
    if varies is not None and not varies.any():
        raise ValueError(
            f"{dump_path}: every activation at the dumped positions is the same for every "
            "sample, so no neuron can predict a label (predictivity would be the majority "
            "rate everywhere). Do the soft prompts see the input? (A causal LM's prompts "
            "must follow it; the dump's metadata 'positions' and the prompt file's "
            "'layout' say where they were read.)"
        )
    if varies is not None:
        LOG.info("%s: %.1f%% of the dumped activations vary across samples", dump_path,
                 100 * varies.mean())  # fmt: skip
    for name, accumulator in accumulators.items():
        expected = len(groups[name].idx)
        if accumulator.count != expected:
            raise ValueError(
                f"{dump_path}: group {name!r} has {expected} dev samples but the dump holds "
                f"{accumulator.count} of them (raise activations.max_samples?)"
            )
    return {name: accumulator.accuracy() for name, accumulator in accumulators.items()}


def trial_predictivities(
    prompt_accuracy: Mapping[str, np.ndarray], input_accuracy: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Every definition's ``[layers, neurons]`` predictivity (and best token) of one trial."""
    out = {}
    for group, accuracy in prompt_accuracy.items():
        for definition in ("max", "mean", "positive"):
            pred, best = neuron_predictivity(accuracy, definition)
            out[f"{definition}/{group}"] = pred.astype(np.float32)
            if definition == "max":
                out[f"best_token/{group}"] = best.astype(np.int64)
        avg, top = input_accuracy[group][:, :1], input_accuracy[group][:, 1:]
        out[f"input_avg/{group}"] = neuron_predictivity(avg, "max")[0].astype(np.float32)
        out[f"input_max/{group}"] = neuron_predictivity(top, "max")[0].astype(np.float32)
    return out


def modal_token(best_tokens: Sequence[np.ndarray], tokens: int) -> np.ndarray:
    """The most frequent best token over trials, ``[layers, neurons]`` (ties: lowest)."""
    counts = np.zeros((*best_tokens[0].shape, tokens), dtype=np.int64)
    for best in best_tokens:
        np.put_along_axis(
            counts, best[..., None], np.take_along_axis(counts, best[..., None], -1) + 1, -1
        )
    return counts.argmax(axis=-1)


def task_ranking(
    per_trial: Sequence[Mapping[str, np.ndarray]],
    groups: Mapping[str, SampleGroup],
    tokens: int,
    task: str,
    seed: int,
) -> pd.DataFrame:
    """The rankings table (see :func:`skillneurons.neurons.ranking.ranking_table`) of a task.

    ``groups`` are the task's sample groups (:func:`read_groups`), in the order the
    subtasks take turns; each group's dev size sets the resolution of its predictivity.
    Overall predictivity is the mean over trials of the paper's definition (Eq. 6),
    computed exactly from the dev counts (:func:`skillneurons.neurons.predictivity.combine_trials`
    with ``samples``), with its s.e.m.; ``best_token`` is the most frequent best token
    over trials. Neurons of equal predictivity are therefore exactly tied, and the tie is
    broken by a random key seeded by ``seed`` and the task's name
    (:func:`skillneurons.neurons.ranking.tie_key`), so each task breaks them its own way
    and none by float rounding.
    """
    means, sems, best = {}, {}, {}
    for group, members in groups.items():
        key = None if group == BINARY_GROUP else group
        means[key], sems[key] = combine_trials(
            [trial[f"max/{group}"] for trial in per_trial], samples=len(members.idx)
        )
        best[key] = modal_token([trial[f"best_token/{group}"] for trial in per_trial], tokens)
    shape = next(iter(means.values())).shape
    return ranking_table(means, sems, best, tie_key(shape, [seed, zlib.crc32(task.encode())]))


def trial_ranking(
    predictivity: Mapping[str, np.ndarray],
    groups: Mapping[str, SampleGroup],
    trial: int,
    task: str,
    seed: int,
) -> Ranking:
    """Trial ``trial``'s own ranking: :func:`task_ranking` of that trial alone, from the
    arrays of a predictivity file (:func:`read_predictivity`); ``groups`` as the task's
    ranking takes them (:func:`read_groups`). Eq. 6 with one trial is the trial's Eq. 5
    predictivity, read back from float32 onto its dev-count grid, ties broken as in the
    task's ranking."""
    suffix = f"/trial{trial}"
    arrays = {
        name.removesuffix(suffix): values
        for name, values in predictivity.items()
        if name.endswith(suffix)
    }
    if not arrays:
        raise ValueError(f"the predictivity file holds no arrays of trial {trial}")
    tokens = 1 + max(int(arrays[f"best_token/{group}"].max()) for group in groups)
    return Ranking(task_ranking([arrays], groups, tokens, task, seed))


@dataclass(frozen=True)
class TopNeuron:
    """A trial's most predictive (layer, token, neuron) on dev and its direction."""

    layer: int
    token: int
    neuron: int
    dev_accuracy: float
    sign: int


def top_neuron(accuracy: np.ndarray) -> TopNeuron:
    """The (layer, token, neuron) with the highest Eq. 5 predictivity on dev."""
    pred = np.maximum(accuracy, 1.0 - accuracy)
    layer, token, neuron = np.unravel_index(int(pred.argmax()), pred.shape)
    value = float(accuracy[layer, token, neuron])
    return TopNeuron(int(layer), int(token), int(neuron), value, neuron_sign(value))


def neuron_values(dump_path: str, cells: Sequence[tuple[int, int, int]]) -> pd.DataFrame:
    """Activations of a few (layer, token, neuron) cells for every dumped sample.

    Returns a frame with ``idx``, ``label`` and one float32 column per cell, named
    ``"L{layer}T{token}N{neuron}"``, in dump order.
    """
    parts = []
    for batch in iter_activations(dump_path):
        columns = {"idx": batch.idx, "label": batch.labels}
        for layer, token, neuron in cells:
            columns[f"L{layer}T{token}N{neuron}"] = batch.activations[:, layer, token, neuron]
        parts.append(pd.DataFrame(columns))
    frame = pd.concat(parts, ignore_index=True)
    value_columns = [c for c in frame.columns if c not in ("idx", "label")]
    return frame.astype({c: np.float32 for c in value_columns})


def top_neuron_correct(
    top: TopNeuron, baseline: np.ndarray, test_dump: str, group: SampleGroup | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Table 1: per test sample, whether predicting with one neuron, ``a > a_bsl`` (or
    ``<=`` when its dev accuracy was below 0.5), is right; restricted to ``group``'s
    samples if given. Returns the samples' ``idx`` and bool ``correct``."""
    cell = (top.layer, top.token, top.neuron)
    values = neuron_values(test_dump, [cell])
    labels = values["label"].to_numpy()
    if group is not None:
        lookup = pd.Series(group.labels, index=group.idx)
        values = values[values["idx"].isin(group.idx)]
        labels = lookup.loc[values["idx"]].to_numpy()
    activations = values.iloc[:, 2].to_numpy()
    correct = neuron_correct(activations, labels, float(baseline[cell]), top.sign)
    return values["idx"].to_numpy(np.int64), correct


def skill_neuron_accuracy(
    dev_dump: str, test_dump: str, baseline: np.ndarray, groups: Mapping[str, SampleGroup]
) -> dict:
    """Table 1's skill-neuron column for one trial: test accuracy of the top neuron(s).

    The top neuron of each group is found on dev (Eq. 5, best token). A binary task
    predicts with its top neuron alone (``a > a_bsl``, or ``<=`` for a negatively
    correlated neuron). A multi-class task fits a logistic regression on the
    activations of its subtasks' top neurons on dev and scores it on test (§3.2).
    Besides the accuracy, ``test_idx`` and ``test_correct`` say which test samples were
    right (the findings' paired bootstrap).
    """
    accuracies = trial_accuracies(dev_dump, baseline, groups)
    tops = {name: top_neuron(accuracy) for name, accuracy in accuracies.items()}
    if list(groups) == [BINARY_GROUP]:
        idx, correct = top_neuron_correct(tops[BINARY_GROUP], baseline, test_dump)
    else:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        cells = [(top.layer, top.token, top.neuron) for top in tops.values()]
        dev, test = neuron_values(dev_dump, cells), neuron_values(test_dump, cells)
        features = [c for c in dev.columns if c not in ("idx", "label")]
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        model.fit(dev[features].to_numpy(), dev["label"].to_numpy())
        predicted = model.predict(test[features].to_numpy())
        idx, correct = test["idx"].to_numpy(np.int64), predicted == test["label"].to_numpy()
    return {
        "test_accuracy": float(np.mean(correct)),
        "test_idx": idx.tolist(),
        "test_correct": np.asarray(correct, dtype=bool).tolist(),
        "top_neurons": {name: top.__dict__ for name, top in tops.items()},
    }


def write_ranking(path: str, table: pd.DataFrame, metadata: Mapping[str, object]) -> None:
    """Write ``results/{model}/rankings/{task}.parquet`` atomically."""
    write_frame_parquet(path, table, metadata)


def write_predictivity(
    path: str, per_trial: Sequence[Mapping[str, np.ndarray]], metadata: Mapping[str, object]
) -> None:
    """Write the predictivity file (see the module docstring) atomically."""
    arrays = {
        f"{name}/trial{trial}": values
        for trial, arrays in enumerate(per_trial)
        for name, values in arrays.items()
    }
    write_arrays(path, arrays, metadata)


def read_predictivity(path: str) -> dict[str, np.ndarray]:
    """The predictivity file as name -> numpy array."""
    return read_arrays(path)


def read_groups(dev_path: str, subtask_paths: Sequence[str] = ()) -> dict[str, SampleGroup]:
    """:func:`subtask_groups` from split files; subtask names come from their metadata."""
    from skillneurons.data.splits import read_split

    subtasks = {}
    for path in subtask_paths:
        frame, meta = read_split(path)
        subtasks[meta["subtask"]] = frame
    return subtask_groups(read_split(dev_path)[0], subtasks)


def cell_name(cell: tuple[int, int, int]) -> str:
    return "L{}T{}N{}".format(*cell)


def predictivity_panels(
    files: Mapping[str, str], keys: Sequence[str]
) -> dict[str, dict[str, list[np.ndarray]]]:
    """Per task (and subtask) panel, the per-trial predictivity arrays of ``keys``.

    ``files`` maps task name -> predictivity file. Panels are named ``task`` or
    ``task: subtask``.
    """
    panels: dict[str, dict[str, list[np.ndarray]]] = {}
    for task, path in files.items():
        arrays = read_predictivity(path)
        for name in sorted(arrays):
            key, group, _ = name.split("/")
            if key not in keys:
                continue
            panel = task if group == BINARY_GROUP else f"{task}: {group}"
            panels.setdefault(panel, {k: [] for k in keys})[key].append(arrays[name])
    return panels


def skill_neuron_table(
    prompt_metrics: Sequence[Mapping], neuron_results: Sequence[Mapping]
) -> pd.DataFrame:
    """Table 1: prompt tuning vs top skill neuron, test accuracy mean ± std over trials."""
    rows = []
    tasks = list(dict.fromkeys(m["task"] for m in prompt_metrics))
    for task in tasks:
        tuned = [m["test_accuracy"] for m in prompt_metrics if m["task"] == task]
        neuron = [r["test_accuracy"] for r in neuron_results if r["task"] == task]
        pt_mean, pt_std, pt_text = accuracy_summary(tuned)
        sn_mean, sn_std, sn_text = accuracy_summary(neuron)
        rows.append(
            {
                "task": task,
                "trials": len(tuned),
                "prompt_tuning": pt_text,
                "skill_neuron": sn_text,
                "prompt_tuning_mean": pt_mean,
                "prompt_tuning_std": pt_std,
                "skill_neuron_mean": sn_mean,
                "skill_neuron_std": sn_std,
            }
        )
    return pd.DataFrame(rows)


def control_table(
    results: Mapping[str, Sequence[Mapping]], num_labels: Mapping[str, int]
) -> pd.DataFrame:
    """Table 3: top-neuron test accuracy per setting (mean ± std over trials) and the
    random-guess rate. ``results`` maps setting -> per-trial result dicts with ``task``."""
    rows = []
    for task, labels in num_labels.items():
        row = {"task": task, "random_guess": f"{100 / labels:.1f}"}
        for setting, entries in results.items():
            values = [entry["test_accuracy"] for entry in entries if entry["task"] == task]
            row[setting] = accuracy_summary(values)[2]
            row[f"{setting}_mean"] = accuracy_summary(values)[0]
        rows.append(row)
    return pd.DataFrame(rows)


def read_trial_results(paths: Sequence[str]) -> list[dict]:
    """Per-trial result dicts from JSON files holding one trial or a task's ``trials``."""
    from skillneurons.infra.io import read_json

    results = []
    for path in paths:
        payload = read_json(path)
        results.extend(payload["trials"] if "trials" in payload else [payload])
    return results
