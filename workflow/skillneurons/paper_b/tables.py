"""Paper B's tables from the experiments' results (B-T1, B-T2, the B-F5 matrices with the
generation panel B-F5d, AB-T1, B-F2/B-F6, B-T9, B-F3/B-T4, and B-T5/B-F4 with CL and FG,
Eqs. 4-5), and the bands of B-F2/B-F6 (:func:`share_intervals`) and B-F4
(:func:`forgetting_intervals`), each through its claims' own statistic and units.

Results frames are :data:`skillneurons.paper_b.evaluation.COLUMNS`; accuracies are
shown in percent. Random rows are summarised over their draws (mean and sample std).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.forgetting import RetentionSamples, retention
from skillneurons.paper_b.random_neurons import RANDOM_CONDITIONS
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.paper_b.share_scores import mean_score, sample_units, score_cells
from skillneurons.reporting.findings import BootstrapSettings, Units
from skillneurons.reporting.intervals import CELL_COLUMNS, interval
from skillneurons.reporting.stats import accuracy_summary, curve_area


def _scores(results: pd.DataFrame, condition: str, source: str, eval_task: str) -> list[float]:
    """The ``score`` values (accuracy, or ROUGE-L for a generation task: the row's
    ``metric``) of the rows of one condition, source and evaluated task, in draw
    order."""
    chosen = results[
        (results["condition"] == condition)
        & (results["source"] == source)
        & (results["eval_task"] == eval_task)
    ]
    return chosen["score"].tolist()


def _random_summary(values: list[float]) -> tuple[float, float]:
    """Mean and sample std (NaN for one draw) of the random draws' accuracies, in %."""
    mean, std, _ = accuracy_summary(values)
    return 100 * mean, 100 * std


def _random_columns(results: pd.DataFrame, prefix: str, task: str) -> dict[str, float]:
    """``{prefix}_{condition}`` and its ``_std`` for both kinds of random sets
    (:data:`~skillneurons.paper_b.random_neurons.RANDOM_CONDITIONS`: ``random``, paper
    B's, drawn over all layers; ``random_layer_matched``, ours) of ``task`` on ``task``,
    the mean and std over the draws in %, and ``random_draws`` (draws of each kind)."""
    columns, draws = {}, set()
    for condition in RANDOM_CONDITIONS:
        values = _scores(results, condition, task, task)
        mean, std = _random_summary(values)
        columns |= {f"{prefix}_{condition}": mean, f"{prefix}_{condition}_std": std}
        draws.add(len(values))
    if len(draws) != 1:
        raise ValueError(
            f"{task}'s results hold different numbers of draws of the two kinds of random "
            f"sets ({sorted(draws)}; {RANDOM_CONDITIONS}): rerun rules deactivation and "
            "neuron_training"
        )
    return {**columns, "random_draws": draws.pop()}


def deactivation_table(results: pd.DataFrame) -> pd.DataFrame:
    """B-T1 (B-T6): per task, the multi-task model's test score x 100 (accuracy; ROUGE-L
    for the generation rows) as trained, with random neurons deactivated (mean and std
    over draws): ``deactivate_random``, paper B's "Deactivate-Random" (as many neurons
    as the task's, drawn over all layers), and ``deactivate_random_layer_matched`` (ours:
    as many per layer), and with the task's neurons."""
    rows = []
    for task in dict.fromkeys(results["eval_task"]):
        random = _random_columns(results, "deactivate", task)
        rows.append(
            {
                "task": task,
                "original": 100 * _scores(results, "original", "", task)[0],
                **{k: v for k, v in random.items() if k != "random_draws"},
                "deactivate_task": 100 * _scores(results, "task", task, task)[0],
                "random_draws": random["random_draws"],
            }
        )
    return pd.DataFrame(rows)


def training_table(results: pd.DataFrame, zero_shot: pd.DataFrame) -> pd.DataFrame:
    """B-T2 (B-T7): per trained task, its zero-shot score x 100 (accuracy; ROUGE-L for
    the generation rows), after training random neurons (mean and std over draws):
    ``train_random``, paper B's "Train-Random" (as many neurons as the task's, drawn
    over all layers), and ``train_random_layer_matched`` (ours: as many per layer), and
    after training the task's neurons, with the three gains over zero-shot in points."""
    trained = results[
        (results["condition"] == "task") & (results["source"] == results["eval_task"])
    ]
    rows = []
    for task in dict.fromkeys(trained["source"]):
        base = 100 * _scores(zero_shot, "zero_shot", "", task)[0]
        random = _random_columns(results, "train", task)
        own = 100 * _scores(results, "task", task, task)[0]
        rows.append(
            {
                "task": task,
                "zero_shot": base,
                **{k: v for k, v in random.items() if k != "random_draws"},
                "train_task": own,
                **{
                    f"gain_{condition}": random[f"train_{condition}"] - base
                    for condition in RANDOM_CONDITIONS
                },
                "gain_task": own - base,
                "random_draws": random["random_draws"],
            }
        )
    return pd.DataFrame(rows)


def effect_matrix(
    results: pd.DataFrame,
    reference: Mapping[str, float],
    sign: float = 1.0,
    condition: str = "task",
) -> pd.DataFrame:
    """B-F5: rows the task whose neurons were deactivated (or trained), columns the
    evaluated task; cell ``sign * (score - reference[eval task])`` in points, the score
    being accuracy (ROUGE-L for the generation panels b and d) (deactivation:
    ``sign = -1`` and the trained model's accuracy, the drop; training: the gain over
    zero-shot). ``condition`` ``random`` or ``random_layer_matched``: a control matrix
    of B-F5c/d, random neurons (drawn over all layers, or layer-matched) trained on the
    row's task, the score the mean over the draws."""
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    matrix = pd.DataFrame(index=pd.Index(tasks, name="neurons_of"), columns=tasks, dtype=float)
    for source in tasks:
        for task in tasks:
            scores = _scores(results, condition, source, task)
            if not scores:
                raise ValueError(
                    f"no {condition!r} result of {source}'s neurons on {task}: rerun its "
                    "training (results written before random trainings of both kinds "
                    "were tested on every task)"
                )
            matrix.loc[source, task] = 100 * sign * (np.mean(scores) - reference[task])
    return matrix.reset_index()


def effect_intervals(
    results: pd.DataFrame,
    reference: pd.DataFrame,
    settings: BootstrapSettings,
    sign: float = 1.0,
    condition: str = "task",
) -> pd.DataFrame:
    """B-F5's cells (:func:`effect_matrix` of the runs' mean) with their intervals.

    ``results`` are every run's rows (column ``run``; none: one run), ``reference`` the
    rows of the reference condition (``original``: each run's own; ``zero_shot``: the
    untrained model's, one run shared by every run). Cell (row task ``i``, evaluated
    task ``j``) is ``100 * sign * (score - reference score)`` of ``j``'s test samples
    (``sample_scores``: accuracy, or ROUGE-L F1), the mean over the runs (and, for a
    random ``condition``, over the random draws); its interval is
    :func:`skillneurons.reporting.intervals.interval`'s over the units of the diagonal
    claims (:mod:`skillneurons.paper_b.findings`): the training runs > the random draws
    (random conditions only) > ``j``'s test samples, the same under every run and draw.
    Columns :data:`skillneurons.reporting.intervals.CELL_COLUMNS` (row: the task whose
    neurons were changed, column: the evaluated task)."""
    results, reference = with_runs(results), with_runs(reference)
    trained = results[results["condition"] == condition]
    tasks = list(dict.fromkeys(results.loc[results["condition"] == "task", "source"]))
    runs = sorted(set(results.loc[results["condition"] == "task", "run"]))
    draws = int(trained["draw"].max()) + 1
    scores = {(r.run, r.source, r.eval_task, r.draw): np.asarray(r.sample_scores, np.float64)
              for r in trained.itertuples()}  # fmt: skip
    own = {(r.run, r.eval_task): np.asarray(r.sample_scores, np.float64)
           for r in reference.itertuples()}  # fmt: skip
    shared = len({run for run, _ in own}) == 1
    cells = []
    for source in tasks:
        for task in tasks:
            samples = len(own[(0 if shared else runs[0], task)])
            units = Units(
                runs={RUNS: len(runs)},
                draws={"random draws": draws} if condition in RANDOM_CONDITIONS else {},
                samples={"test samples": samples},
            )

            def statistic(i, source=source, task=task) -> float:
                chosen = i["test samples"]
                changes = [
                    np.mean(
                        [
                            scores[(run, source, task, int(d))][chosen].mean()
                            for d in i.get("random draws", [0])
                        ]
                    )  # fmt: skip
                    - own[(0 if shared else run, task)][chosen].mean()
                    for run in (runs[r] for r in i[RUNS])
                ]
                return 100 * sign * float(np.mean(changes))

            stream = f"effect {condition} {sign:g} {source} {task}"
            cells.append([source, task, *interval(statistic, units, settings, stream),
                          units.describe()])  # fmt: skip
    return pd.DataFrame(cells, columns=CELL_COLUMNS)


def reference_scores(results: pd.DataFrame, condition: str) -> dict[str, float]:
    """Per evaluated task, the ``score`` (accuracy, or ROUGE-L) of the ``condition``
    rows (original, zero_shot)."""
    chosen = results[results["condition"] == condition]
    return dict(zip(chosen["eval_task"], chosen["score"], strict=True))


def comparison_table(
    agreements: Mapping[str, Mapping], areas: Mapping[str, Mapping[str, float]]
) -> pd.DataFrame:
    """AB-T1: per task, the rank agreement of paper A's and paper B's neurons
    (:func:`skillneurons.paper_b.comparison.ranking_agreement`) and the areas under the
    AB-F1 curves (less area: more accuracy destroyed)."""
    rows = []
    for task, agreement in agreements.items():
        rows.append(
            {
                "task": task,
                "spearman": agreement["spearman"],
                "spearman_layer_mean": agreement["spearman_layer_mean"],
                "jaccard_top": agreement["jaccard"],
                "jaccard_chance": agreement["jaccard_chance"],
                "top_neurons": agreement["top_neurons"],
                **{f"area_{name}": value for name, value in areas[task].items()},
            }
        )
    return pd.DataFrame(rows)


def curve_areas_by_order(curves: pd.DataFrame, orders: Sequence[str]) -> dict[str, float]:
    """Mean area under each order's accuracy curve (random repeats averaged)."""
    areas = {}
    for order in orders:
        rows = curves[curves["order"] == order].groupby("rate")["accuracy"].mean()
        areas[order] = float(curve_area(rows.index.to_numpy(), rows.to_numpy()))
    return areas


def mean_row(frame: pd.DataFrame, label: str = "mean") -> pd.DataFrame:
    """``frame`` with a last row of its float columns' means (task ``label``); counts
    (integer columns) are left empty there."""
    numeric = frame.select_dtypes(include=[np.floating]).mean()
    return pd.concat(
        [frame, pd.DataFrame([{"task": label, **numeric.to_dict()}])], ignore_index=True
    )


def role_series(rows: pd.DataFrame, group: str) -> pd.Series:
    """Which B-F2 / B-F6 line each result row of a model trained on ``group`` belongs
    to: ``id_mean`` (in-domain), ``ood_mean`` (out-of-domain, the group's own test
    tasks) or ``ood_cross_mean`` (the other group's)."""
    own = rows["eval_group"] == group
    series = np.where(own, "ood_mean", "ood_cross_mean")
    return pd.Series(np.where(rows["role"] == "id", "id_mean", series), index=rows.index)


def _role_means(rows: pd.DataFrame, group: str) -> dict[str, float]:
    """Mean in-domain score, out-of-domain score on the trained group's own test tasks
    and, where scored, on the other group's (``ood_cross_mean``), in %
    (:func:`role_series`)."""
    means = rows.groupby(role_series(rows, group))["score"].mean()
    means = means.reindex(["id_mean", "ood_mean", *means.index.intersection(["ood_cross_mean"])])
    return {name: 100 * float(value) for name, value in means.items()}


#: Columns of :func:`share_intervals`.
SHARE_COLUMNS = ["panel", "series", "proportion", "estimate", "low", "high", "runs"]


def share_intervals(
    frame: pd.DataFrame, panel: str, settings: BootstrapSettings, scale: float = 100.0
) -> pd.DataFrame:
    """B-F2's and B-F6's bands: per (``panel`` column's value, ``series``,
    ``proportion``) of trained models' result rows of every training run (``frame``:
    those columns, ``run``, ``group``, ``trained``, ``overlap``, ``eval_task`` and
    ``sample_scores``; ``series`` as :func:`role_series` names the lines), the mean over
    the runs and the evaluated tasks of the mean score over their test samples, times
    ``scale`` (points: B-F2's y axis; :func:`proportion_table`'s value of the run
    means), with its interval over the training runs > every evaluated task's test
    samples: the statistic and the units of the share claims
    (:mod:`skillneurons.paper_b.share_scores`). ``runs``: the training runs behind a
    point (1: the spread across runs is not measured). Columns :data:`SHARE_COLUMNS`."""
    rows = []
    keys = [panel, "series", "proportion"]
    for (name, series, proportion), chosen in frame.groupby(keys, sort=False):
        cells = score_cells(chosen)
        models = list(dict.fromkeys(key[1:] for key in cells))
        units = sample_units(chosen)

        def statistic(indices: Mapping[str, np.ndarray], cells=cells, models=models) -> float:
            return scale * mean_score(cells, models, indices)

        stream = f"share {name} {series} {proportion:g}"
        rows.append([name, series, float(proportion),
                     *interval(statistic, units, settings, stream), units.run_count])  # fmt: skip
    return pd.DataFrame(rows, columns=SHARE_COLUMNS)


def _single_class(rows: pd.DataFrame) -> float:
    """How many evaluated tasks the model predicted one class for (a collapsed
    training); NaN where the results do not say (the zero-shot row)."""
    if "predicted_classes" not in rows:
        return float("nan")
    return float((rows["predicted_classes"] == 1).sum())


def proportion_table(results: pd.DataFrame, zero_shot: Mapping[str, float]) -> pd.DataFrame:
    """B-F2 / B-F6: per trained group, trained task (``group`` for B-F2) and
    proportion, the mean in-domain and out-of-domain score (%: accuracy, ROUGE-L x
    100; :func:`_role_means`), every evaluated task's, and how many tasks the model
    predicted one class for; a first row per trained task at proportion 0 is the
    untrained model (``zero_shot``: task -> its score)."""
    tasks = list(dict.fromkeys(results["eval_task"]))
    rows = []
    for (group, trained), chosen in results.groupby(["group", "trained"], sort=False):
        evaluated = chosen.drop_duplicates("eval_task")
        untrained = evaluated.drop(columns=["predicted_classes"]).assign(
            score=[zero_shot[task] for task in evaluated["eval_task"]]
        )
        points = [(0.0, untrained), *chosen.groupby("proportion", sort=True)]
        for proportion, rows_at in points:
            score = dict(zip(rows_at["eval_task"], rows_at["score"], strict=True))
            rows.append(
                {
                    "group": group,
                    "trained": trained,
                    "proportion": float(proportion),
                    **_role_means(rows_at, group),
                    **{task: 100 * score[task] for task in tasks if task in score},
                    "single_class_tasks": _single_class(rows_at),
                }
            )
    return pd.DataFrame(rows)


def controlled_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """B-T9..B-T11: per pair of groups (``results``' keys, training-test group: T9
    cls-cls, T10 gen-gen, T11 gen-cls; each pair's results its own frame, since two
    pairs of one training group draw sets of the same sizes and shares), trained
    proportion ``q`` and set (the natural one first, then the drawn ones by share), the
    share of test-task neurons in the trained set (``overlap``, A.7's ``o``, %), Eq. 13's
    Jaccard value of the trained set and the test tasks' neurons (``jaccard``, %: the
    natural row's is paper B's italic overlap rate, 20.8% at q = 10% for cls-cls), the
    mean out-of-domain and in-domain score (%) and how many tasks the model predicted
    one class for."""
    rows = []
    keys = ["proportion", "trained", "overlap"]
    for pair, frame in results.items():
        for (proportion, trained, overlap), chosen in frame.groupby(keys, sort=False):
            rows.append(
                {
                    "pair": pair,
                    "proportion": float(proportion),
                    "trained": trained,
                    "overlap": 100 * float(overlap),
                    "jaccard": 100 * float(chosen["jaccard"].iloc[0]),
                    "ood_mean": 100 * float(chosen.loc[chosen["role"] == "ood", "score"].mean()),
                    "id_mean": 100 * float(chosen.loc[chosen["role"] == "id", "score"].mean()),
                    "single_class_tasks": _single_class(chosen),
                }
            )
    frame = pd.DataFrame(rows)
    order = frame["trained"].map({"natural": 0, "drawn": 1})
    return (
        frame.assign(_order=order)
        .sort_values(["pair", "proportion", "_order", "overlap"], kind="stable")
        .drop(columns="_order")
        .reset_index(drop=True)
    )


def similarity_views(
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]],
) -> list[tuple[str, str]]:
    """B-F3's panels as (test group, models) pairs, ``groups`` mapping a group name to
    its (training tasks, test tasks): every group's test tasks against all the models
    ``M_i`` (paper B's panels a, b) and, with two groups or more, against its own
    group's models only (panel c: the generation tests and the three generation-trained
    models; here also the classification tests and the classification-trained models)."""
    views = [(group, "all") for group in groups]
    if len(groups) > 1:
        views += [(group, group) for group in groups]
    return views


def depth_halves(layers: int) -> tuple[np.ndarray, np.ndarray]:
    """The shallow and the deep half of ``layers`` layers (0 = bottom), whose mean
    similarities B-F3's profile claim compares (§5.2: low at the bottom, rising after
    some depth): layers ``< layers // 2`` and ``>= ceil(layers / 2)``; with an odd
    count the middle layer is in neither."""
    return np.arange(layers // 2), np.arange((layers + 1) // 2, layers)


def layer_similarity_table(
    similarities: pd.DataFrame,
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]],
) -> pd.DataFrame:
    """B-F3's values, one block per panel of :func:`similarity_views`: per test task,
    definition and layer, the similarity and its chance level (random sets of the same
    sizes, :func:`skillneurons.paper_b.similarity.chance_similarity`) averaged over the
    panel's models ``M_i`` (column ``trained`` of ``similarities``; ``model_count``:
    those with a value there, a layer where a task has no neuron has none). Columns
    ``test_group`` and ``models`` (``all``, or the group whose training tasks' models
    are averaged) name the panel; ``half`` says which half of the layers the profile
    claim puts the layer in (:func:`depth_halves`: ``shallow``, ``deep``, or ``middle``
    for an odd count's middle layer)."""
    shallow, deep = depth_halves(int(similarities["layer"].max()) + 1)
    blocks = []
    for test_group, models in similarity_views(groups):
        chosen = similarities[similarities["test_task"].isin(groups[test_group][1])]
        if models != "all":
            chosen = chosen[chosen["trained"].isin(groups[models][0])]
        means = (
            chosen.groupby(["test_task", "definition", "layer"], sort=False)
            .agg(
                similarity=("similarity", "mean"),
                chance=("chance", "mean"),
                model_count=("similarity", "count"),
            )
            .reset_index()
        )
        blocks.append(means.assign(test_group=test_group, models=models))
    frame = pd.concat(blocks, ignore_index=True)
    frame["half"] = np.select(
        [frame["layer"].isin(shallow), frame["layer"].isin(deep)], ["shallow", "deep"], "middle"
    )
    columns = ["test_group", "models", "test_task", "definition", "layer", "half",
               "similarity", "chance", "model_count"]  # fmt: skip
    return frame[columns]


#: Columns of :func:`layer_similarity_intervals`.
SIMILARITY_INTERVAL_COLUMNS = ["test_group", "models", "test_task", "definition", "layer",
                               "estimate", "low", "high", "resampled"]  # fmt: skip


def layer_similarity_intervals(
    similarities: pd.DataFrame,
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    settings: BootstrapSettings,
) -> pd.DataFrame:
    """B-F3's points (:func:`layer_similarity_table`'s ``similarity``) with their
    intervals: per panel of :func:`similarity_views`, test task, definition and layer,
    the similarity averaged over the training runs (column ``run``; none: one run) and
    the panel's models ``M_i`` (column ``trained``; a model without a value there left
    out), its interval :func:`skillneurons.reporting.intervals.interval`'s over the
    units of B-F3's profile claim (:mod:`skillneurons.paper_b.generalization_findings`):
    the training runs > the models. Columns :data:`SIMILARITY_INTERVAL_COLUMNS`."""
    frame = with_runs(similarities)
    runs = sorted(frame["run"].unique())
    rows = []
    for test_group, models in similarity_views(groups):
        chosen = frame[frame["test_task"].isin(groups[test_group][1])]
        if models != "all":
            chosen = chosen[chosen["trained"].isin(groups[models][0])]
        trained = list(dict.fromkeys(chosen["trained"]))
        units = Units(runs={RUNS: len(runs)}, samples={"models M_i": len(trained)})
        keys = ["test_task", "definition", "layer"]
        for (task, definition, layer), cells in chosen.groupby(keys, sort=False):
            values = (
                cells.pivot_table(
                    index="run", columns="trained", values="similarity", dropna=False
                )  # fmt: skip
                .reindex(index=runs, columns=trained)
                .to_numpy(np.float64)
            )

            def statistic(i, values=values) -> float:
                drawn = values[np.ix_(i[RUNS], i["models M_i"])]
                finite = drawn[np.isfinite(drawn)]
                return float(finite.mean()) if finite.size else float("nan")

            stream = f"similarity {test_group} {models} {task} {definition} {layer}"
            rows.append([test_group, models, task, definition, int(layer),
                         *interval(statistic, units, settings, stream),
                         units.describe()])  # fmt: skip
    return pd.DataFrame(rows, columns=SIMILARITY_INTERVAL_COLUMNS)


def similarity_points(
    similarities: pd.DataFrame, scores: pd.DataFrame, definition: str
) -> pd.DataFrame:
    """B-T4's points: per model ``M_i`` (``trained``) and test task, the similarity
    (``definition``, named in its column; mean over layers with both sets non-empty),
    its chance level (mean over the same layers) and ``M_i``'s score on the test task
    (%: accuracy, ROUGE-L x 100); with a ``run`` column (several training runs, config
    ``paper_b.runs``), per run too (``run`` first)."""
    runs = ["run"] if "run" in similarities else []
    chosen = similarities[similarities["definition"] == definition]
    keys = [*runs, "trained", "test_task"]
    means = chosen.groupby(keys, sort=False)["similarity"].mean()
    chance = chosen.dropna(subset=["similarity"]).groupby(keys, sort=False)["chance"].mean()
    score = scores.set_index([*runs, "trained", "eval_task"])["score"]
    return pd.DataFrame(
        [
            {
                **dict(zip(keys, key, strict=True)),
                "definition": definition,
                "similarity": float(value),
                "chance": float(chance.get(key, np.nan)),
                "score": 100 * float(score[key]),
            }
            for key, value in means.items()
        ],
        columns=[*keys, "definition", "similarity", "chance", "score"],
    )


def accuracy_matrix(results: pd.DataFrame, method: str, order: Sequence[str]) -> pd.DataFrame:
    """``a_ij`` of ``method``: rows the tasks ``i`` of ``order``, columns the stages ``j``
    (1-based); NaN where task ``i`` is not yet learnt (``i > j``)."""
    rows = results[results["method"] == method]
    matrix = rows.pivot(index="eval_task", columns="stage", values="accuracy")
    return matrix.reindex(index=list(order), columns=range(1, len(order) + 1))


def cl_score(matrix: pd.DataFrame) -> float:
    """Eq. 4: ``CL = (1/N) Σ_i a_{i,N}``, the mean accuracy after the last stage."""
    return float(matrix.iloc[:, -1].mean())


def forgetting(matrix: pd.DataFrame, reference: Mapping[str, float]) -> dict[int, float]:
    """Eq. 5 (%, :func:`skillneurons.paper_b.forgetting.retention`) of an ``a_ij``
    matrix (:func:`accuracy_matrix`) for every stage ``j >= 2`` (``reference``: per-task
    FT's ``A_i``). A retention ratio: higher is better."""
    alone = [reference[task] for task in matrix.index]
    found = retention(matrix.to_numpy(np.float64), alone)
    return {stage: 100 * float(value) for stage, value in enumerate(found, start=2)}


#: B-T5's methods as paper B names them, with its mean CL over the Standard benchmark's
#: orders 1-3 (Table 5); EPI and O-LoRA are quoted, never measured here. W-NCFT's
#: uniform-weight control is ours: paper B has no value for it (NaN).
CONTINUAL_NAMES = {"seqft": "SeqFT", "seqlora": "SeqLoRA", "ncft": "NCFT", "wncft": "W-NCFT",
                   "wncft_uniform": "W-NCFT, uniform weights",
                   "per_task": "Per-task FT"}  # fmt: skip
PAPER_STANDARD_CL = {"SeqFT": 47.1, "SeqLoRA": 53.8, "EPI": 48.4, "O-LoRA": 76.1,
                     "NCFT": 71.3, "W-NCFT": 73.3, "W-NCFT, uniform weights": float("nan"),
                     "Per-task FT": 77.2}  # fmt: skip
QUOTED_METHODS = ("EPI", "O-LoRA")
#: The methods trained along an order, one ``a_ij`` matrix per order each: every method of
#: :data:`CONTINUAL_NAMES` but per-task FT (each task's own model).
ORDER_METHODS = tuple(method for method in CONTINUAL_NAMES if method != "per_task")


def _per_task_matrix(per_task: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    accuracy = per_task.set_index("eval_task")["accuracy"]
    return pd.DataFrame({len(order): [accuracy[task] for task in order]}, index=list(order))


def continual_matrices(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame
) -> dict[tuple[str, str], pd.DataFrame]:
    """``a_ij`` per (order, method) (:func:`accuracy_matrix`);
    per-task FT's is one column, each task's own model."""
    matrices = {}
    for name, frame in results.items():
        order = frame.drop_duplicates("stage").sort_values("stage")["stage_task"].tolist()
        for method in ORDER_METHODS:
            matrices[(name, method)] = accuracy_matrix(frame, method, order)
        matrices[(name, "per_task")] = _per_task_matrix(per_task, order)
    return matrices


def continual_table(results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame) -> pd.DataFrame:
    """B-T5: per order and method, CL (Eq. 4, %) with paper B's mean over the Standard
    orders beside it; then paper B's EPI and O-LoRA rows, quoted (``source``)."""

    def row(order: str, name: str, cl: float, source: str) -> dict:
        paper = PAPER_STANDARD_CL[name]
        return {"order": order, "method": name, "cl": cl, "paper_standard_mean": paper,
                "source": source}  # fmt: skip

    rows = [
        row(order, CONTINUAL_NAMES[method], 100 * cl_score(matrix), "measured")
        for (order, method), matrix in continual_matrices(results, per_task).items()
    ]
    rows += [
        row(
            "Standard, orders 1-3",
            name,
            PAPER_STANDARD_CL[name],
            "paper B, Table 5 (quoted, not measured)",
        )  # fmt: skip
        for name in QUOTED_METHODS
    ]
    return pd.DataFrame(rows)


def continual_matrix_table(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame
) -> pd.DataFrame:
    """Every ``a_ij`` (%): order, method, task ``i``, then one column per stage ``j``."""
    frames = []
    for (order, method), matrix in continual_matrices(results, per_task).items():
        shown = (100 * matrix).rename(columns=lambda stage: f"stage {stage}")
        frames.append(shown.rename_axis("task").reset_index().assign(order=order, method=method))
    table = pd.concat(frames, ignore_index=True)
    return table[["order", "method", "task", *[c for c in table if c.startswith("stage")]]]


def forgetting_table(results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame) -> pd.DataFrame:
    """B-F4: FG_j (Eq. 5, %: :func:`forgetting`) per order, method and stage ``j >= 2``,
    each training run's (config ``paper_b.runs``: its ``a_ij`` against its own per-task
    FT's accuracies as ``A_i``) averaged over the runs, as B-F4's bands
    (:func:`forgetting_intervals`) and claims estimate it. ``results``: per order, every
    run's rows; ``per_task``: every run's per-task FT rows (rows without ``run``: run 0).
    """
    results = {name: with_runs(frame) for name, frame in results.items()}
    per_task = with_runs(per_task)
    runs = sorted({int(run) for frame in results.values() for run in frame["run"]})
    rows = []
    for run in runs:
        own = per_task[per_task["run"] == run]
        reference = own.set_index("eval_task")["accuracy"].to_dict()
        chosen = {name: frame[frame["run"] == run] for name, frame in results.items()}
        for (order, method), matrix in continual_matrices(chosen, own).items():
            if method == "per_task":
                continue
            for stage, value in forgetting(matrix, reference).items():
                rows.append({"order": order, "method": CONTINUAL_NAMES[method], "stage": stage,
                             "fg": value})  # fmt: skip
    keys = ["order", "method", "stage"]
    frame = pd.DataFrame(rows, columns=[*keys, "fg"])
    return frame.groupby(keys, sort=False, as_index=False)["fg"].mean()


#: Columns of :func:`forgetting_intervals`.
FORGETTING_COLUMNS = ["order", "method", "stage", "estimate", "low", "high", "runs"]


def forgetting_intervals(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, settings: BootstrapSettings
) -> pd.DataFrame:
    """B-F4's points with their intervals: per order, method and stage ``j >= 2``, FG_j
    (Eq. 5, %: :func:`forgetting_table`'s value) and its interval from the findings
    engine over the training runs (``runs``: how many) > the test samples of every task
    learnt before stage ``j``, shared by ``a_ij`` and per-task FT's ``A_i``
    (:class:`~skillneurons.paper_b.forgetting.RetentionSamples`, as B-F4's claims
    resample: :func:`skillneurons.paper_b.continual_findings.retention_claims`).
    ``results`` and ``per_task``: every run's rows (:func:`forgetting_table`). Columns
    :data:`FORGETTING_COLUMNS`, the method named as in :data:`CONTINUAL_NAMES`."""
    samples = RetentionSamples.of(results, per_task, ORDER_METHODS)
    rows = []
    for name, (order, _) in samples.orders.items():
        for method in ORDER_METHODS:
            if not samples.has(method, name):
                continue
            for stage in range(2, len(order) + 1):

                def statistic(i, name=name, method=method, stage=stage) -> float:
                    return 100 * float(samples.fg(name, method, i, stage)[:, -1].mean())

                units = samples.units(order[: stage - 1])
                stream = f"forgetting {name} {method} {stage}"
                rows.append([name, CONTINUAL_NAMES[method], stage,
                             *interval(statistic, units, settings, stream),
                             len(samples.runs)])  # fmt: skip
    return pd.DataFrame(rows, columns=FORGETTING_COLUMNS)
