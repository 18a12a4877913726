"""What paper B's similarity experiment reports (§5.2): the tables and claims of B-F3 and
B-T4.

Named for the experiment it reports: :mod:`skillneurons.paper_b.similarity` trains the
models ``M_i`` and measures the similarities (and imports torch); this module turns them
into B-F3's table and bands (:func:`layer_similarity_table`,
:func:`layer_similarity_intervals`), B-T4's points and correlations
(:func:`similarity_points`, :func:`correlation_table`) and the claims, free of torch so
that the table and findings scripts start fast.

=============================================  ============================================
claim                                          effect; resampled
=============================================  ============================================
similarity correlates with generalization      Pearson's r of similarity above chance and
(§5.2, B-T4)                                   out-of-domain accuracy, centred within each
                                               test task; (model, test task) pairs
similarity is low in the shallow layers and    similarity above chance over the deep half
rises after some depth (§5.2, B-F3; per test   of the layers minus over the shallow half,
group: Figure 3a, 3c)                          mean over models and test tasks; models x
                                               test tasks
=============================================  ============================================

Both claims read the configured ``paper_b.generalization.similarity`` (default
``centroid``, paper B's cosine: :mod:`skillneurons.paper_b.similarity_definitions`) and
name it in their effect. Both decide the similarity above its chance level (``chance``:
the same definition on random sets of the same sizes in the layer), since the cosine of
two large sets' means is high by arithmetic and the sets' sizes vary with the layer and
the model. The profile is claimed where paper B finds it (Figure 3): the
classification tests against every model (a) and the generation tests against the
generation-trained models (c; every model where there is no classification group);
paper B's panel b, the generation tests against every model, has "no trend", which a
verdict of this engine cannot state, so it is not claimed. Both resample the training
runs of their results (config ``paper_b.runs``: the models M_i trained once per run) as
their top unit; rows on fewer runs than ``findings.min_runs`` stay inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from skillneurons.paper_b.generalization_report import claim_key, claim_suffix
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.paper_b.similarity_definitions import PAPER_DEFINITION
from skillneurons.reporting.findings import BootstrapSettings, Claim, Units, decide, unavailable
from skillneurons.reporting.intervals import interval

#: Correlations need at least this many (model, test task) points.
MIN_POINTS = 4


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
    units of B-F3's profile claim (:func:`profile_claim`): the training runs > the
    models. Columns :data:`SIMILARITY_INTERVAL_COLUMNS`."""
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


def correlation_table(points: pd.DataFrame) -> pd.DataFrame:
    """B-T4: per test task, Pearson's r and Spearman's rho (with p-values) between the
    models' similarity (mean over layers) and their score on it; NaN below
    :data:`MIN_POINTS` models. A last ``pooled`` row correlates all points after
    centring both within each test task (so tasks' levels do not count).

    ``points`` has ``trained``, ``test_task``, ``similarity`` and ``score``."""
    rows = []
    for task, group in points.groupby("test_task", sort=False):
        rows.append({"test_task": task, **_correlations(group["similarity"], group["score"])})
    centred = points.assign(
        similarity=points["similarity"]
        - points.groupby("test_task")["similarity"].transform("mean"),
        score=points["score"] - points.groupby("test_task")["score"].transform("mean"),
    )
    rows.append({"test_task": "pooled", **_correlations(centred["similarity"], centred["score"])})
    return pd.DataFrame(rows)


def _correlations(x: pd.Series, y: pd.Series) -> dict:
    keep = x.notna() & y.notna()
    x, y = x[keep].to_numpy(), y[keep].to_numpy()
    nan = float("nan")
    if len(x) < MIN_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {
            "points": len(x),
            "pearson": nan,
            "pearson_p": nan,
            "spearman": nan,
            "spearman_p": nan,
        }
    pearson, spearman = pearsonr(x, y), spearmanr(x, y)
    return {
        "points": len(x),
        "pearson": float(pearson.statistic),
        "pearson_p": float(pearson.pvalue),
        "spearman": float(spearman.statistic),
        "spearman_p": float(spearman.pvalue),
    }


def correlation_claim_for(definition: str) -> Claim:
    """B-T4's claim on the similarity ``definition`` (:mod:`skillneurons.paper_b.similarity`)."""
    return Claim(
        "parameter similarity correlates positively with generalization",
        "§5.2, B-T4",
        f"Pearson's r of similarity ({definition}, mean over layers) minus its chance "
        "level and out-of-domain score, centred within each test task",
        "model x test task pairs",
        "Pearson >= 0.79 per test task",
        margin=0.395,
        margin_basis="half the paper's effect (B-T4: Pearson 0.79)",
        key="similarity_correlates",
    )


SIMILARITY_CORRELATES = correlation_claim_for(PAPER_DEFINITION)

#: B-F3's profile claims: per test group, the models whose mean profile paper B finds
#: rising (Figure 3a: the classification tests, every model; 3c: the generation tests,
#: the generation-trained models), with the panel's name.
PROFILE_PANELS = {"cls": ("all", "Figure 3a"), "gen": ("gen", "Figure 3c")}


def profile_claim_for(group: str, definition: str) -> Claim:
    """B-F3's profile claim for a test group (``cls``: named as before, ``gen``)."""
    models, figure = PROFILE_PANELS.get(group, ("all", "Figure 3"))
    trained = "every model" if models == "all" else f"the {models}-trained models"
    return Claim(
        "parameter similarity is low in the shallow layers and rises after some depth"
        + claim_suffix(group, "cls"),
        "§5.2, B-F3",
        f"similarity ({definition}) minus its chance level, over the deep half of the "
        f"layers - over the shallow half, mean over {trained} and the {group} test tasks",
        "models M_i x test tasks",
        f"{figure}: low at the bottom, rising after some depth, back to about the bottom "
        "level at the top",
        margin=0.05,
        margin_basis="smallest effect of interest: 0.05 of similarity above chance",
        key=claim_key("similarity_profile", group, "cls"),
    )


def similarity_claim(points: pd.DataFrame, settings: BootstrapSettings) -> dict:
    """B-T4's claim (:func:`correlation_claim_for` the points' ``definition``, paper B's
    cosine where the points do not name one) on B-T4's points (:func:`similarity_points`),
    the similarity above its ``chance`` level; per training run (the points' ``run``)
    the correlation over the (model, test task) pairs every run has, the mean over the
    drawn runs; runs > pairs resampled."""
    names = points["definition"].dropna().unique() if "definition" in points else []
    claim = correlation_claim_for(names[0] if len(names) else PAPER_DEFINITION)
    points = with_runs(points)
    excess = _above_chance(points, "B-T4's points")
    within = [points["run"], points["test_task"]]
    centred = points.assign(
        similarity=excess - excess.groupby(within).transform("mean"),
        score=points["score"] - points.groupby(within)["score"].transform("mean"),
    ).dropna(subset=["similarity", "score"])
    table = centred.pivot_table(
        index=["trained", "test_task"], columns="run", values=["similarity", "score"]
    ).dropna()
    if len(table) < 4:
        return unavailable(claim, f"{len(table)} points; at least 4 needed")
    x = table["similarity"].to_numpy(np.float64).T  # [runs, pairs]
    y = table["score"].to_numpy(np.float64).T

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        chosen = indices["model x test task pairs"]
        found = []
        for run in indices[RUNS]:
            a, b = x[run, chosen], y[run, chosen]
            if np.ptp(a) == 0 or np.ptp(b) == 0:
                return float("nan")
            found.append(np.corrcoef(a, b)[0, 1])
        return float(np.mean(found))

    units = Units(runs={RUNS: x.shape[0]}, samples={"model x test task pairs": x.shape[1]})
    return decide(claim, statistic, units, settings)


def _above_chance(frame: pd.DataFrame, what: str) -> pd.Series:
    """``similarity - chance`` of ``frame``'s rows."""
    if "chance" not in frame:
        raise ValueError(
            f"{what} have no 'chance' column (files written before the chance level was "
            "measured): rerun rule similarity_model"
        )
    return frame["similarity"] - frame["chance"]


def profile_claim(
    claim: Claim, similarities: pd.DataFrame, layers: int, settings: BootstrapSettings
) -> dict:
    """``claim`` (:func:`profile_claim_for`) on one panel's similarities (``trained``,
    ``test_task``, ``layer``, ``similarity`` and ``chance`` of one definition,
    ``layers`` layers; ``run``: the training run): per run, model and test task, the
    mean similarity above chance over the deep half of the layers minus over the
    shallow half (:func:`depth_halves`; layers without a value skipped), averaged over
    the runs, models and test tasks, all resampled. Not measured below
    :data:`MIN_POINTS` profiles or two models (an interval from one model would only
    show its test tasks' spread)."""
    shallow, deep = depth_halves(layers)
    if similarities.empty:
        return unavailable(claim, "no similarities")
    if not len(shallow):
        return unavailable(claim, f"{layers} layer(s); two halves need at least 2")
    half = np.select(
        [similarities["layer"].isin(shallow), similarities["layer"].isin(deep)],
        ["shallow", "deep"],
        "middle",
    )
    means = (
        with_runs(similarities)
        .assign(half=half, similarity=_above_chance(similarities, "similarities"))
        .query("half != 'middle'")
        .groupby(["run", "trained", "test_task", "half"], sort=False)["similarity"]
        .mean()
        .unstack("half")
        .reindex(columns=["shallow", "deep"])
    )
    gaps = (means["deep"] - means["shallow"]).unstack("test_task")  # [runs x models, tasks]
    runs = gaps.index.get_level_values("run").unique()
    models_of = gaps.index.get_level_values("trained").unique()
    full = pd.MultiIndex.from_product([runs, models_of], names=["run", "trained"])
    matrix = gaps.reindex(full).to_numpy(np.float64)
    matrix = matrix.reshape(len(runs), len(models_of), -1)  # [runs, models, test tasks]
    profiles = int(np.isfinite(matrix[0]).sum())
    models = int(np.isfinite(matrix[0]).any(axis=1).sum())
    if profiles < MIN_POINTS or models < 2:
        return unavailable(
            claim,
            f"{profiles} (model, test task) profiles over {models} model(s); at least "
            f"{MIN_POINTS} over 2 models needed",
        )

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        chosen = matrix[np.ix_(indices[RUNS], indices["models M_i"], indices["test tasks"])]
        finite = chosen[np.isfinite(chosen)]
        return float(finite.mean()) if finite.size else float("nan")

    units = Units(
        runs={RUNS: matrix.shape[0]},
        samples={"models M_i": matrix.shape[1], "test tasks": matrix.shape[2]},
    )
    return decide(claim, statistic, units, settings)


def profile_claims(
    similarities: pd.DataFrame,
    groups: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    definition: str,
    settings: BootstrapSettings,
) -> list[dict]:
    """B-F3's profile claims (:func:`profile_claim_for`), one per test group of
    ``groups`` (name -> (training tasks, test tasks)), on every model ``M_i``'s
    similarities (column ``trained``) under ``definition``: the models of
    :data:`PROFILE_PANELS` (every model where it names a group that is absent)."""
    chosen = similarities[similarities["definition"] == definition]
    layers = int(similarities["layer"].max()) + 1
    rows = []
    for group, (_, test_tasks) in groups.items():
        panel = chosen[chosen["test_task"].isin(test_tasks)]
        models = PROFILE_PANELS.get(group, ("all", ""))[0]
        if models in groups:
            panel = panel[panel["trained"].isin(groups[models][0])]
        rows.append(profile_claim(profile_claim_for(group, definition), panel, layers, settings))
    return rows
