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
- :func:`top_neuron_correct` evaluates a trial's top skill neuron on test (Table 1);
- :func:`selected_neurons` and :func:`held_out_correct` hold Figure 3's comparison out:
  the neuron the prompts select on dev and the one each Avg./Max. baseline selects,
  scored on the test samples.

Predictivity file ``results/{model}/predictivity/{task}.safetensors``: float32
``[layers, neurons]`` tensors named ``{definition}/{group}/trial{t}`` for definition
in :data:`DEFINITIONS` and group ``task`` (binary tasks) or a subtask name, plus int64
``best_token/{group}/trial{t}`` (Eq. 6's best prompt token). Each value is a count
over the group's dev samples to float32 precision.

Top-neuron file ``results/{model}/skill_neurons/tuned/{task}.json`` (rule
``rank_neurons``): ``model``, ``task``, ``trials`` (their number) and then ``trials``,
one entry per trial in trial order: ``task``, ``trial``, Table 1's ``test_accuracy``,
``test_idx`` and ``test_correct`` (:func:`skill_neuron_accuracy`), and ``held_out``
(:func:`held_out_correct`): per group (``task`` or a subtask name), ``test_idx`` (the
group's test samples in the dumps, int) and, for each selection of
:data:`SELECTIONS` (``max``: the prompts; ``input_avg``, ``input_max``: the Avg./Max.
baselines), the neuron chosen on dev (``layer``, ``token``, ``neuron``,
``dev_accuracy``, ``sign``; ``token`` indexes the prompt tokens for ``max``, the
``input_mean_max`` dump's two "tokens" otherwise) with ``test_correct``, one bool per
``test_idx``.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

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
#: Figure 3's input-token baselines by their "token" in an ``input_mean_max`` dump:
#: "Avg." reads the mean over the input tokens, "Max." the max.
INPUT_TOKENS = {"input_avg": 0, "input_max": 1}
#: The neuron selections compared on held-out samples: the prompts' (``max``, Eq. 6's
#: definition) and each input-token baseline's.
SELECTIONS = ("max", *INPUT_TOKENS)
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
        for key, token in INPUT_TOKENS.items():
            accuracy = input_accuracy[group][:, token : token + 1]
            out[f"{key}/{group}"] = neuron_predictivity(accuracy, "max")[0].astype(np.float32)
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
    computed exactly from the dev counts
    (:func:`skillneurons.neurons.predictivity.combine_trials` with ``samples``), with its
    s.e.m.; ``best_token`` is the most frequent best token over trials. Neurons of equal
    predictivity are therefore exactly tied, and the tie is broken by a random key
    seeded by ``seed`` and the task's name (:func:`skillneurons.neurons.ranking.tie_key`),
    so each task breaks them its own way and none by float rounding.
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


def _cell(top: TopNeuron) -> tuple[int, int, int]:
    return top.layer, top.token, top.neuron


def _in_group(values: pd.DataFrame, group: SampleGroup | None) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of ``values`` (:func:`neuron_values`) in ``group`` and the group's labels
    for them (a subtask's), or every row with the dump's labels when ``group`` is None."""
    if group is None:
        return values, values["label"].to_numpy()
    rows = values[values["idx"].isin(group.idx)]
    return rows, pd.Series(group.labels, index=group.idx).loc[rows["idx"]].to_numpy()


def top_neuron_correct(
    top: TopNeuron, baseline: np.ndarray, test_dump: str, group: SampleGroup | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Table 1: per test sample, whether predicting with one neuron, ``a > a_bsl`` (or
    ``<=`` when its dev accuracy was below 0.5), is right; restricted to ``group``'s
    samples if given. Returns the samples' ``idx`` and bool ``correct``."""
    cell = _cell(top)
    values, labels = _in_group(neuron_values(test_dump, [cell]), group)
    correct = neuron_correct(values[cell_name(cell)], labels, float(baseline[cell]), top.sign)
    return values["idx"].to_numpy(np.int64), correct


def selected_neurons(
    prompt_accuracy: np.ndarray, input_accuracy: np.ndarray
) -> dict[str, TopNeuron]:
    """Figure 3's selections on one group's dev samples (§4.1), by :data:`SELECTIONS`.

    Parameters
    ----------
    prompt_accuracy : float ``[layers, tokens, neurons]``, Eq. 4 at the prompt tokens.
    input_accuracy : float ``[layers, 2, neurons]``, Eq. 4 of the input-token mean and
        max (an ``input_mean_max`` dump).

    Returns
    -------
    ``{"max": TopNeuron, "input_avg": TopNeuron, "input_max": TopNeuron}``: the prompts'
    most predictive (layer, prompt token, neuron) (Eq. 5, Table 1's top neuron), and each
    baseline's most predictive neuron (its ``token`` the baseline's in the dump), each
    with the sign its dev accuracy gives (:func:`skillneurons.neurons.predictivity.neuron_sign`).
    The prompts pick from ``tokens`` times more cells than a baseline, so on dev the max
    favours them even where no neuron predicts anything; held-out samples
    (:func:`held_out_correct`) compare the selections without that edge.
    """
    selected = {"max": top_neuron(prompt_accuracy)}
    for key, token in INPUT_TOKENS.items():
        selected[key] = replace(top_neuron(input_accuracy[:, token : token + 1]), token=token)
    return selected


def held_out_correct(
    prompt_accuracy: Mapping[str, np.ndarray],
    input_accuracy: Mapping[str, np.ndarray],
    baselines: Mapping[str, np.ndarray],
    test_dump: str,
    test_input_dump: str,
    groups: Mapping[str, SampleGroup],
) -> dict[str, dict]:
    """Per test sample of each group, whether each neuron selected on dev
    (:func:`selected_neurons`) is right (§4.1, Figure 3 held out): ``a > a_bsl``
    predicts label 1 (``<=`` for sign -1, fixed on dev), with ``a_bsl`` of Eq. 3 at the
    neuron's cell.

    Parameters
    ----------
    prompt_accuracy, input_accuracy : group -> the trial's dev accuracies (Eq. 4,
        :func:`trial_accuracies`) at the prompt tokens and of the input-token mean/max.
    baselines : the trial's baseline file: ``prompt`` ``[layers, tokens, neurons]`` and
        ``input_mean_max`` ``[layers, 2, neurons]``.
    test_dump, test_input_dump : the trial's test dumps at the prompt tokens and of the
        input-token mean/max; each is read once.
    groups : the task's test sample groups (:func:`read_groups` of the test split and its
        subtasks), named as the dev groups.

    Returns
    -------
    The ``held_out`` entry of the top-neuron file (module docstring): per group,
    ``test_idx`` and, per selection, the neuron with its ``test_correct``.
    """
    selected = {
        name: selected_neurons(prompt_accuracy[name], input_accuracy[name]) for name in groups
    }
    prompt_cells = {_cell(tops["max"]) for tops in selected.values()}
    input_cells = {_cell(tops[key]) for tops in selected.values() for key in INPUT_TOKENS}
    prompt = neuron_values(test_dump, sorted(prompt_cells))
    inputs = neuron_values(test_input_dump, sorted(input_cells))
    if not np.array_equal(prompt["idx"].to_numpy(), inputs["idx"].to_numpy()):
        raise ValueError(
            f"{test_dump} and {test_input_dump} hold different test samples; rerun rule "
            "dump_activations, which draws both with the same seed"
        )
    values = {"max": (prompt, baselines["prompt"])}
    values.update({key: (inputs, baselines["input_mean_max"]) for key in INPUT_TOKENS})
    out = {}
    for name, group in groups.items():
        rows, labels = _in_group(prompt, group)
        if rows.empty:
            raise ValueError(
                f"{test_dump}: none of group {name!r}'s {len(group.idx)} test samples is in "
                "the dump (raise activations.max_samples?)"
            )
        entry: dict[str, object] = {"test_idx": rows["idx"].tolist()}
        for key, top in selected[name].items():
            frame, baseline = values[key]
            cell = _cell(top)
            activations = frame.loc[rows.index, cell_name(cell)]
            correct = neuron_correct(activations, labels, float(baseline[cell]), top.sign)
            entry[key] = {**top.__dict__, "test_correct": correct.tolist()}
        out[name] = entry
    return out


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
            panel = panel_name(task, group)
            panels.setdefault(panel, {k: [] for k in keys})[key].append(arrays[name])
    return panels


def panel_name(task: str, group: str) -> str:
    """A (sub)task panel's name: the task for a binary task, ``task: subtask`` otherwise."""
    return task if group == BINARY_GROUP else f"{task}: {group}"


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
