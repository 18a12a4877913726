"""Generalization and specialization through task neurons (paper B, §5.1, appendices
A.5-A.7): the trainings of B-F2, B-F6 and B-T9..B-T11.

Paper B splits its tasks into groups (Table 3): classification (``cls``) and, on a
causal LM, generation (``gen``), each with training (in-domain) tasks and out-of-domain
test tasks. From the base model, only task neurons are trained; each task is trained
and scored through its :class:`skillneurons.paper_b.scorers.TaskScorer` (accuracy for
classification, ROUGE-L F1 for generation), so one training is scored on both groups:

- **B-F2** (§5.1): a group's training tasks together (a mixture, one task per batch),
  each batch updating the top-``p`` share of *its own* task's neurons (the union of the
  tasks' sets takes part in every forward; a batch's step changes only its task's
  entries, their Adam moments holding only the gradients of the tasks that own them:
  :class:`skillneurons.models.neuron_deltas.MaskedAdam`), for every ``p``;
  the in-domain score (ID: the training tasks' test splits) is specialization, the
  out-of-domain one (OOD: the test tasks' of each group: cls -> cls, cls -> gen,
  gen -> cls, gen -> gen) generalization;
- **B-F6** (A.5): the same with one model per training task;
- **B-T8** (A.6, Eq. 13): the overlap rate ``|N_x ∩ N_y| / |N_x ∪ N_y|`` (a Jaccard
  index: paper B's 20.8% at 10%) of the union ``N_x`` of the training tasks' top-``p``
  sets and the union ``N_y`` of the test tasks', and the share ``|N_x ∩ N_y| / |N_x|``
  of the training tasks' neurons that are test-task neurons (what A.7's ``o`` measures
  of a trained set), each beside what random sets of the same sizes would give, for
  every pair of groups (no training: B-T8's table and claims compare the sets of
  :mod:`skillneurons.paper_b.task_neuron_sets` in
  :mod:`skillneurons.paper_b.generalization_report`);
- **B-T9..B-T11** (A.7): for a pair of groups (T9 cls -> cls, T10 gen -> gen, T11
  gen -> cls), at a fixed trained proportion ``q`` the trained set has ``|N_x(q)|``
  neurons of which a share ``o`` is drawn from the test tasks' neurons ``N_y(q)`` (all
  of them when ``N_y(q)`` is smaller than that) and the rest from the other neurons
  (seeded), for several ``o``, every training task training that one drawn set; and
  the natural row, paper B's original result (A.7's italic rows): each training task
  trains its own top-``q`` set, as B-F2 does at ``p = q``. Each row records ``o`` and
  Eq. 13's Jaccard value of its trained set and ``N_y(q)`` (for the natural row, B-T8's
  overlap rate at ``q``).

Neurons are found on the base model (paper B's choice when choosing neurons to train).
Paper B gives no learning rates; by default every share trains at one rate, so that a
share contrast compares shares and not rates (config
``paper_b.generalization.learning_rate_share`` can instead shrink it in proportion
above one share: :func:`training_for_share`; the share claims then get no verdict).
Results table (``results/{model}/paper_b/generalization/run{r}/{group}/*.parquet``, one
folder per training run of config ``paper_b.runs``): ``run``, ``experiment``
(``multitask``, ``single``, ``controlled``), ``group`` (the trained group), ``trained``
(the trained task, ``group``, or for B-T9..B-T11 ``natural`` / ``drawn``),
``proportion`` (p or q), ``overlap`` (B-T9..B-T11: the trained set's share of test-task
neurons, ``|S ∩ N_y| / |S|``; NaN elsewhere), ``jaccard`` (B-T9..B-T11: Eq. 13's
``|S ∩ N_y| / |S ∪ N_y|``; NaN elsewhere), ``learning_rate`` (the training's Adam rate:
:func:`training_for_share`), ``eval_task``, ``eval_group`` (its group), ``role``
(``id``, ``ood`` or ``other``: another training task after a single-task training),
``metric`` (``accuracy`` or ``rouge_l``), ``score`` (the test split's mean),
``predicted_classes`` (how many labels the model predicted on the test split: 1 when
training collapsed to one class; 0 for generation) and ``sample_scores`` (float64 per
test sample: 1/0 for right/wrong, or ROUGE-L F1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from skillneurons.models.mixture import MultiTaskClassifier, TaskMixture
from skillneurons.models.neuron_deltas import NeuronDeltas
from skillneurons.models.training import TrainingSettings, train
from skillneurons.neurons.relevance_table import layer_width
from skillneurons.paper_b.scorers import TaskScorer
from skillneurons.paper_b.task_neuron_sets import (
    Neurons,
    flat_ids,
    from_flat,
    overlap_rate,
    share_in,
    top_sets,
    union,
    union_ids,
)

COLUMNS = (
    "experiment",
    "group",
    "trained",
    "proportion",
    "overlap",
    "jaccard",
    "learning_rate",
    "eval_task",
    "eval_group",
    "role",
    "metric",
    "score",
    "predicted_classes",
    "sample_scores",
)
#: The columns that name an evaluation (a training run's files add ``run`` first:
#: :mod:`skillneurons.paper_b.runs`).
KEYS = (
    "experiment",
    "group",
    "trained",
    "proportion",
    "overlap",
    "learning_rate",
    "eval_task",
    "eval_group",
    "role",
    "metric",
)


def controlled_set(
    test_ids: np.ndarray, size: int, share: float, total: int, seed: int
) -> np.ndarray:
    """A.7's trained set: ``size`` flat ids, ``round(share * size)`` (half up) drawn from
    ``test_ids`` and the rest from the other neurons, seeded. When the test tasks have
    fewer neurons than the share asks for (their union is smaller than the training
    tasks'), every test-task neuron is taken: the share actually reached is what the
    results record."""
    inside = min(int(np.floor(share * size + 0.5)), len(test_ids))
    others = np.setdiff1d(np.arange(total), test_ids)
    if size - inside > len(others):
        raise ValueError(
            f"cannot draw {size - inside} of {size} neurons from the {len(others)} neurons "
            "outside the test tasks'; raise the share or lower the proportion"
        )
    generator = np.random.default_rng(seed)
    chosen = np.concatenate(
        [
            generator.choice(test_ids, size=inside, replace=False),
            generator.choice(others, size=size - inside, replace=False),
        ]
    )
    return np.sort(chosen)


def evaluate_rows(
    scorers: Mapping[str, TaskScorer],
    meta: Mapping[str, object],
    roles: Mapping[str, tuple[str, str]],
) -> list[dict]:
    """One row per evaluated task of ``roles`` (task -> (role, its group);
    :data:`COLUMNS`), its test split scored on the model as it is now."""
    rows = []
    for task, (role, group) in roles.items():
        scores, classes = scorers[task].evaluate("test")
        rows.append(
            {
                **meta,
                "eval_task": task,
                "eval_group": group,
                "role": role,
                "metric": scorers[task].metric,
                "score": float(scores.mean()),
                "predicted_classes": classes,
                "sample_scores": scores,
            }
        )
    return rows


def train_neurons_of_tasks(
    scorers: Mapping[str, TaskScorer],
    neurons: Mapping[str, Neurons],
    training: TrainingSettings,
    *,
    output_only: bool = False,
    progress: bool = True,
) -> tuple[NeuronDeltas, dict]:
    """Train, from the model under ``scorers``, the tasks of ``neurons`` together (one
    task per batch, in turn), each batch changing only its own task's neurons, with
    masked Adam moments (:class:`skillneurons.models.neuron_deltas.MaskedAdam`: a
    neuron of one task moves as Adam on that task's batches alone; a neuron of several
    tasks trains on each of their batches, its moments holding their gradients only);
    the mean dev score over those tasks (accuracy or ROUGE-L) chooses the kept state.
    Returns the trained deltas (still attached: :meth:`NeuronDeltas.remove` restores
    the base model) and the training's metrics."""
    tasks = list(neurons)
    model = MultiTaskClassifier([scorers[task].head for task in tasks])
    model.deltas = NeuronDeltas(model.backbone, union(list(neurons.values())), output_only)
    owned: dict[int, dict] = {}  # task index -> its entries (NeuronDeltas.entries_of)

    def confine(trained: MultiTaskClassifier, batch: dict) -> dict:
        task = int(batch["task"])
        if task not in owned:
            owned[task] = trained.deltas.entries_of(neurons[tasks[task]])
        return owned[task]

    def mean_dev_score(_: MultiTaskClassifier) -> float:
        return float(np.mean([scorers[task].mean("dev") for task in tasks]))

    mixture = TaskMixture({task: scorers[task].train for task in tasks})
    result = train(
        model, mixture, None, training, model.pad_id, progress=progress,
        evaluate=mean_dev_score, confine=confine if len(tasks) > 1 else None,
    )  # fmt: skip
    deltas = model.deltas
    metrics = {
        "tasks": tasks,
        "neurons": {
            task: int(sum(len(v) for v in chosen.values())) for task, chosen in neurons.items()
        },
        "trained_entries": deltas.entries(),
        "best_step": result.best_step,
        "dev_score": result.best_dev_accuracy,
        "dev_curve": [
            {"step": p["step"], "dev_score": p["dev_accuracy"], "train_loss": p["train_loss"]}
            for p in result.dev_curve
        ],
    }
    return deltas, metrics


def training_for_share(
    training: TrainingSettings, proportion: float, rate_share: float | None
) -> TrainingSettings:
    """``training`` for a trained share ``proportion`` when its learning rate was set
    for the share ``rate_share`` (config ``paper_b.generalization.learning_rate_share``):
    above that share the rate is scaled by ``rate_share / proportion``, so that Adam,
    which moves every trained entry by about the rate per step, moves the model by
    about as much in all; at or below it, and when ``rate_share`` is None, unchanged."""
    if rate_share is None or proportion <= rate_share:
        return training
    return replace(training, learning_rate=training.learning_rate * rate_share / proportion)


def results_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype(
        {"proportion": "float64", "overlap": "float64", "jaccard": "float64",
         "learning_rate": "float64", "score": "float64", "predicted_classes": "int64"}
    )  # fmt: skip


def _roles(
    trained: Sequence[str],
    group: str,
    train_tasks: Sequence[str],
    test_groups: Mapping[str, Sequence[str]],
) -> dict[str, tuple[str, str]]:
    """task -> (role, group) of every evaluated task: the trained group's training
    tasks (``id`` when trained, else ``other``), then every test group's tasks (``ood``)."""
    roles = {task: ("id" if task in trained else "other", group) for task in train_tasks}
    for name, tasks in test_groups.items():
        roles.update({task: ("ood", name) for task in tasks})
    return roles


def _train_and_evaluate(
    scorers, neurons, training, meta, roles, output_only
) -> tuple[list[dict], dict]:
    deltas, metrics = train_neurons_of_tasks(scorers, neurons, training, output_only=output_only)
    with deltas.folded():
        rows = evaluate_rows(scorers, meta, roles)
    deltas.remove()
    return rows, {**{k: v for k, v in meta.items() if k != "experiment"}, **metrics}


def proportion_sweep(
    scorers: Mapping[str, TaskScorer],
    tables: Mapping[str, pd.DataFrame],
    group: str,
    train_tasks: Sequence[str],
    test_groups: Mapping[str, Sequence[str]],
    proportions: Sequence[float],
    training: TrainingSettings,
    *,
    single: str | None = None,
    output_only: bool = False,
    rate_share: float | None = None,
) -> tuple[pd.DataFrame, list[dict]]:
    """B-F2 (``single`` None: the training tasks of ``group`` together) or B-F6
    (``single``: that task alone): for every proportion ``p``, train from the base model
    only the top-``p`` share of each trained task's neurons (``tables``: relevance
    tables of the training tasks, on the base model; the learning rate per share:
    :func:`training_for_share`) and evaluate the group's training tasks and every task
    of ``test_groups`` (group -> its test tasks: the group's own and, on a model that
    runs both, the other group's). Returns the results (:data:`COLUMNS`) and each
    training's metrics."""
    trained = list(train_tasks) if single is None else [single]
    roles = _roles(trained, group, train_tasks, test_groups)
    experiment = "multitask" if single is None else "single"
    rows, metrics = [], []
    for proportion in proportions:
        sets = top_sets({task: tables[task] for task in trained}, proportion)
        at_share = training_for_share(training, proportion, rate_share)
        meta = {"experiment": experiment, "group": group, "trained": single or "group",
                "proportion": float(proportion), "overlap": float("nan"),
                "jaccard": float("nan"), "learning_rate": at_share.learning_rate}  # fmt: skip
        new_rows, new_metrics = _train_and_evaluate(
            scorers, sets, at_share, meta, roles, output_only
        )
        rows += new_rows
        metrics.append(new_metrics)
    return results_frame(rows), metrics


def with_single_task_groups(group: pd.DataFrame, single: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """B-F6's results (``single``: the per-task sweeps) with every group of one training
    task filled in from its B-F2 sweep (``group``): with one training task, training
    the group together and training that task alone are the same training (the same
    neuron sets, settings and seed), so the workflow runs it once and B-F6's rows are
    B-F2's with ``experiment`` ``single`` and ``trained`` the task."""
    frames = list(single)
    for _, together in group.groupby("group", sort=False):
        trained = together.loc[together["role"] == "id", "eval_task"].unique()
        if len(trained) == 1:
            frames.append(together.assign(experiment="single", trained=trained[0]))
    return pd.concat(frames, ignore_index=True) if frames else group.iloc[:0]


def controlled_overlap(
    scorers: Mapping[str, TaskScorer],
    tables: Mapping[str, pd.DataFrame],
    groups: tuple[str, str],
    train_tasks: Sequence[str],
    test_tasks: Sequence[str],
    proportion: float,
    shares: Sequence[float],
    training: TrainingSettings,
    *,
    seed: int,
    output_only: bool = False,
    rate_share: float | None = None,
) -> tuple[pd.DataFrame, list[dict]]:
    """B-T9..B-T11 at one trained proportion ``q`` (A.7) for a pair of groups
    ``groups`` (training group, test group: T9 cls-cls, T10 gen-gen, T11 gen-cls): the
    training tasks train together, first the natural sets (paper B's original result:
    each task its own top-``q`` neurons, B-F2's training at ``p = q``; their union is
    ``N_x(q)``), then for every share ``o`` one set of ``|N_x(q)|`` neurons with that
    share drawn from the test tasks' union ``N_y(q)`` (:func:`controlled_set`, seeded),
    trained by every training task; the training and test tasks are evaluated.
    ``overlap`` records the share of the trained set (the union, for the natural
    sets) that is in ``N_y(q)``, ``jaccard`` Eq. 13 of the two. ``tables`` holds the
    relevance tables of both groups' tasks; the learning rate at ``q``:
    :func:`training_for_share`."""
    training = training_for_share(training, proportion, rate_share)
    first = tables[train_tasks[0]]
    layers, width = int(first["layer"].max()) + 1, layer_width(first)
    own = top_sets({t: tables[t] for t in train_tasks}, proportion)
    x_ids = flat_ids(union(list(own.values())), width)
    y_ids = union_ids({t: tables[t] for t in test_tasks}, proportion, width)
    candidates = [("natural", x_ids, own)]
    for share in shares:
        ids = controlled_set(y_ids, len(x_ids), share, layers * width, seed)
        drawn = from_flat(ids, layers, width)
        candidates.append(("drawn", ids, {task: drawn for task in train_tasks}))
    group, test_group = groups
    roles = _roles(train_tasks, group, train_tasks, {test_group: test_tasks})
    rows, metrics = [], []
    for trained, ids, sets in candidates:
        meta = {"experiment": "controlled", "group": group, "trained": trained,
                "proportion": float(proportion), "overlap": share_in(ids, y_ids),
                "jaccard": overlap_rate(ids, y_ids),
                "learning_rate": training.learning_rate}  # fmt: skip
        new_rows, new_metrics = _train_and_evaluate(
            scorers, sets, training, meta, roles, output_only
        )
        rows += new_rows
        metrics.append(new_metrics)
    return results_frame(rows), metrics
