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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED
from skillneurons.paper_a.skill_neurons import SELECTIONS, panel_name
from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN, TaskCurves, task_curves
from skillneurons.reporting.findings import (
    EQUIVALENCE,
    NOT_DECIDABLE,
    BootstrapSettings,
    Claim,
    Units,
    decide,
    findings_frame,
    refuse,
    unavailable,
    with_note,
)
from skillneurons.reporting.resampling import ResampledRanks, distinct_pairs
from skillneurons.reporting.stats import zscore

#: §4.2's central claim on the paper's design (rule perturbation_paper_design): noise
#: of perturbation.paper_sigma (paper: 0.1) in absolute units, one draw per sample and
#: neuron at every position, against uniform random orders.
TOP_PAPER = Claim(
    "perturbing a task's top skill neurons hurts more than random neurons",
    "§4.2, A-F4/A-F11 (the paper's design)",
    "area(uniform random) - area(own order), mean over evaluation tasks; Gaussian noise "
    "of perturbation.paper_sigma (paper: 0.1) in absolute units, one draw per sample and "
    "neuron at every position",
    "trials, random orders, test samples of each task",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central",
)
#: Two comparisons under the configured noise (perturbation.sigma, unit, ...:
#: the design of the figures; by default 1 neuron std, which means the same on models
#: whose activations have different scales).
TOP_UNIFORM = Claim(
    "perturbing a task's top skill neurons hurts more than random neurons, at the "
    "configured noise",
    "§4.2, A-F4/A-F11 (ours: perturbation.sigma in perturbation.unit)",
    "area(uniform random) - area(own order), mean over evaluation tasks; the configured "
    "noise (perturbation.sigma, perturbation.unit)",
    "trials, random orders, test samples of each task",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central_configured",
)
TOP = Claim(
    "perturbing a task's top skill neurons hurts more than layer-matched random neurons, "
    "at the configured noise",
    "§4.2, A-F4/A-F11 (ours: layer-matched control, perturbation.sigma in perturbation.unit)",
    "area(layer-matched random) - area(own order), mean over evaluation tasks; the "
    "configured noise (perturbation.sigma, perturbation.unit)",
    "test samples of each task, trials, random orders",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central_configured_matched",
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


CORRELATION = Claim(
    "predictivity orders of same-type tasks correlate more than cross-type",
    "§4.3, A-F5",
    "mean Spearman (layer mean), same-type pairs - cross-type pairs",
    "trials (Eq. 6 and the orders recomputed over the drawn trials; the tasks fixed)",
    "diagonal blocks (Figure 5)",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman (Figure 5 gives no number)",
    key="same_type_correlation",
)
IMPORTANCE = Claim(
    "same-type source tasks are more important than cross-type ones",
    "§4.3, A-F6",
    "mean z-scored importance, same-type - cross-type sources, mean over evaluation tasks",
    "test samples of each task, trials, random orders",
    "diagonal blocks (Figure 6)",
    margin=0.5,
    margin_basis="smallest effect of interest: half a standard deviation of importance",
    key="same_type_importance",
)
SELECTIVITY = Claim(
    "the predictivity order beats the selectivity index",
    "App. H, A-F15",
    "area(selectivity order) - area(predictivity order), mean over evaluation tasks",
    "test samples of each task, trials",
    "predictivity order hurts more (Figure 15)",
    margin=0.01,
    margin_basis="half the paper's effect (Figure 15: the selectivity curve about 0.1 "
    "accuracy above ours over rates 0-0.2, an area of 0.02)",
    key="selectivity",
)
#: §4.4: "the average Spearman's correlation between the neuron predictivity orders of
#: 5 random label words is 0.87".
PAPER_AGREEMENT = 0.87
LABEL_WORDS = Claim(
    "orders found with random label words agree as much as the paper's 0.87",
    "§4.4, A-S4.4",
    "mean pairwise Spearman (layer mean) of the random-label-word draws' orders - 0.87 "
    "(negligible: agrees with the paper's value; fails: below it)",
    "label-word draws (pairs of distinct drawn draws)",
    "0.87",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman around the paper's 0.87",
    key="label_words_paper",
)
LABEL_WORDS_CONTROL = Claim(
    "random label words move the orders no more than the prompt seed alone",
    "§4.4, A-S4.4 (control; ours)",
    "mean pairwise Spearman of the random-label-word draws' orders - of the seed-only "
    "controls' (the configured label words, each draw's seeds); comparable supports the "
    "paper, not comparable contradicts it",
    "label-word draws with their controls (pairs of distinct drawn draws)",
    "(the paper has no control; its draws agree at 0.87)",
    margin=0.1,
    margin_basis="smallest effect of interest: 0.1 Spearman",
    key="label_words_control",
    kind=EQUIVALENCE,
)
LABEL_CLAIMS = (LABEL_WORDS, LABEL_WORDS_CONTROL)
PRETRAINING = Claim(
    "skill neurons come from pre-training: the pre-trained model beats a random one",
    "§5, A-T3",
    "top-neuron test accuracy with random prompts, pre-trained - random model, task mean",
    "test samples of each task, trials",
    "e.g. SST-2 86.9 vs 55.2 (Table 3)",
    margin=0.15,
    margin_basis="half the paper's effect (Table 3: SST-2 86.9 vs 55.2, 31.7 points)",
    key="pretraining",
)


def method_claim(method: str) -> Claim:
    return Claim(
        f"{method} models also depend on the prompt-tuning skill neurons",
        "§5, A-F7/A-F8/A-F12/A-F13 (the paper's uniform random control at the configured noise)",
        f"area(uniform random) - area(own prompt-tuning order), {method} models, "
        "mean over evaluation tasks; noise perturbation.sigma in perturbation.unit",
        "test samples of each task, trials, random orders",
        "own order below random (Figures 7, 12, 13)",
        margin=AREA_MARGIN,
        margin_basis=AREA_BASIS,
        key=method,
    )


def _units(curves: Mapping[str, TaskCurves]) -> Units:
    """Prompt trials > random orders > each task's test samples (crossed: the same
    samples under every trial and order)."""
    first = next(iter(curves.values()))
    return Units(
        runs={"trials": first.trials},
        draws={"random orders": first.repeats},
        samples={f"{task}: test samples": curve.samples for task, curve in curves.items()},
    )


def gap_claim(
    claim: Claim,
    curves: Mapping[str, TaskCurves],
    reference: str,
    settings: BootstrapSettings,
) -> dict:
    """``area(reference order) - area(own order)`` averaged over evaluation tasks;
    ``reference`` is ``"layer_matched"``, ``"random"`` (uniform random orders, the
    paper's control) or ``"selectivity"``."""
    keys = {LAYER_MATCHED: (LAYER_MATCHED, "random_layer_matched")}
    keys["selectivity"] = ("selectivity", "selectivity")
    keys["random"] = ("random", "random")
    tasks = [task for task, curve in curves.items() if keys[reference] in curve.correct]
    if not tasks:
        return unavailable(claim, f"no {reference} curve in the perturbation files")

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        return float(
            np.mean(
                [
                    curves[task].area(keys[reference], indices, task)
                    - curves[task].area(("task", task), indices, task)
                    for task in tasks
                ]
            )
        )

    row = decide(claim, statistic, _units({task: curves[task] for task in tasks}), settings)
    moved = max(curves[task].largest_change() for task in tasks)
    return with_note(
        row,
        f"the perturbation moved mean accuracy by at most {100 * moved:.1f} points from "
        "the unperturbed (any rate, any order)",
    )


def importance_claim(
    curves: Mapping[str, TaskCurves], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean z-scored importance (Figure 6), averaged over the
    evaluation tasks that have source tasks of both kinds."""

    def contrast(task: str, indices: Mapping[str, np.ndarray]) -> float:
        curve = curves[task]
        sources = [order for kind, order in curve.correct if kind == "task"]
        random = curve.area(("random", "random"), indices, task)
        scores = zscore([random - curve.area(("task", s), indices, task) for s in sources])
        kind = task_types[task]
        scored = list(zip(sources, scores, strict=True))
        same = [z for s, z in scored if s != task and task_types[s] == kind]
        cross = [z for s, z in scored if task_types[s] != kind]
        return float(np.mean(same) - np.mean(cross)) if same and cross else float("nan")

    tasks = [task for task in curves if not np.isnan(contrast(task, _full(curves)))]
    if not tasks:
        return unavailable(IMPORTANCE, "no evaluation task has same- and cross-type sources")
    chosen = {task: curves[task] for task in tasks}
    return decide(
        IMPORTANCE,
        lambda indices: float(np.mean([contrast(task, indices) for task in tasks])),
        _units(chosen),
        settings,
    )


def _full(curves: Mapping[str, TaskCurves]) -> dict[str, np.ndarray]:
    return {name: np.arange(size) for name, size in _units(curves).levels.items()}


# --------------------------------------------------------------------------- rankings


def _layer_mean_spearman(ranks_a: np.ndarray, ranks_b: np.ndarray) -> float:
    """Mean over layers of the Pearson correlation of two rank arrays ``[layers, n]``."""
    a = ranks_a - ranks_a.mean(axis=1, keepdims=True)
    b = ranks_b - ranks_b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(norm > 0, (a * b).sum(axis=1) / norm, np.nan)
    return float(np.nanmean(rho)) if np.isfinite(rho).any() else float("nan")


def pair_contrast(matrix: np.ndarray, kinds: Sequence[str], chosen: np.ndarray) -> float:
    """Mean of ``matrix[a, b]`` over the pairs of distinct tasks drawn (``chosen``:
    indices, repeats allowed; a task drawn twice is not paired with itself) of the same
    kind, minus over the pairs of different kinds; NaN without both."""
    first, second = distinct_pairs(chosen)
    same = np.asarray(kinds)[first] == np.asarray(kinds)[second]
    values = matrix[first, second]
    if not same.any() or same.all():
        return float("nan")
    return float(values[same].mean() - values[~same].mean())


def trial_scores(predictivity: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each trial's neuron predictivity (Eq. 5 at the best prompt token), float64
    ``[groups, trials, layers, neurons]``, from a predictivity file's arrays
    (:func:`skillneurons.paper_a.skill_neurons.read_predictivity`: ``max/{group}/trial{t}``;
    one group for a binary task, its subtasks for a multi-class one)."""
    names = sorted(name for name in predictivity if name.startswith("max/"))
    groups = sorted({name.split("/")[1] for name in names})
    trials = sorted({int(name.split("/")[2].removeprefix("trial")) for name in names})
    return np.array(
        [[predictivity[f"max/{g}/trial{t}"] for t in trials] for g in groups], dtype=np.float64
    )


def _drawn_ranks(scores: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Ranks within each layer of Eq. 6's scores over the drawn trials: the mean over
    ``chosen`` trials of each group's predictivity, the best group of a multi-class
    task (:meth:`skillneurons.neurons.ranking.Ranking.scores`); average ranks for ties."""
    return stats.rankdata(scores[:, chosen].mean(axis=1).max(axis=0), axis=1)


def correlation_claim(
    scores: Mapping[str, np.ndarray], task_types: Mapping[str, str], settings: BootstrapSettings
) -> dict:
    """Same-type minus cross-type mean Spearman of the tasks' neuron orders (Figure 5):
    :func:`pair_contrast` of the layer-mean Spearman matrix of Eq. 6's scores.
    ``scores`` maps a task to its per-trial predictivity (:func:`trial_scores`).

    The trials are the runs: each resample recomputes Eq. 6's mean over its drawn trials
    and the orders it yields. The tasks define the estimand (the contrast over these
    tasks' pairs) and are fixed; resampling thousands of neurons instead would make
    any non-zero association "hold"."""
    tasks = list(scores)
    kinds = [task_types[task] for task in tasks]
    counts = {scores[task].shape[1] for task in tasks}
    if len(counts) != 1:
        return unavailable(CORRELATION, f"tasks ranked on different numbers of trials {counts}")

    def contrast(indices: Mapping[str, np.ndarray]) -> float:
        ranks = [_drawn_ranks(scores[task], indices["trials"]) for task in tasks]
        matrix = np.array([[_layer_mean_spearman(a, b) for b in ranks] for a in ranks])
        return pair_contrast(matrix, kinds, indices["tasks"])

    units = Units(runs={"trials": counts.pop()}, fixed={"tasks": len(tasks)})
    if not np.isfinite(contrast(units.full())):
        return unavailable(CORRELATION, "needs a same-type and a cross-type pair of tasks")
    return decide(CORRELATION, contrast, units, settings)


def agreement_matrix(scores: Sequence[np.ndarray]) -> np.ndarray:
    """Layer-mean Spearman of every two of several orders' neuron scores
    ``[layers, neurons]``."""
    ranks = [ResampledRanks(values)(np.arange(values.shape[1])) for values in scores]
    return np.array([[_layer_mean_spearman(a, b) for b in ranks] for a in ranks])


def pair_mean(matrix: np.ndarray, chosen: np.ndarray) -> float:
    """Mean of ``matrix[a, b]`` over the pairs of distinct drawn members (``chosen``,
    repeats allowed); NaN without a pair."""
    values = matrix[distinct_pairs(chosen)]
    return float(values.mean()) if values.size else float("nan")


def label_words_claims(
    draws: Mapping[str, Sequence[np.ndarray]],
    controls: Mapping[str, Sequence[np.ndarray]],
    settings: BootstrapSettings,
    noise_floor: Mapping[str, float] | None = None,
) -> list[dict]:
    """§4.4's two rows, averaged over tasks; ``draws`` and ``controls`` map a task to
    its random-label-word draws' and its seed-only controls' neuron scores ``[layers,
    neurons]`` (control ``d``: the configured label words with draw ``d``'s seeds).

    The draws are the training runs and the unit resampled (draw ``d`` together with
    its control ``d``): a draw's statistic averages the Spearman of its pairs of distinct
    drawn draws (:func:`pair_mean`), whereas resampling neurons would make any
    agreement above 0 hold. :data:`LABEL_WORDS` is that agreement minus the paper's
    0.87; :data:`LABEL_WORDS_CONTROL` the agreement minus the controls' (the seed alone
    moves the orders too), the row that decides.

    ``noise_floor`` maps a task to the agreement of the same prompts' orders on two
    halves of its dev split
    (:func:`skillneurons.paper_a.label_word_sampling.split_half_agreement`, mean over
    trials). The comparison with 0.87 is decided only where every task's floor lies
    above 0.87: below it, dev sampling alone keeps two rankings of the same prompts
    further apart than the paper's value, and the row would measure the dev size, not
    the label words (``not decidable here``, the floor in its note)."""
    tasks = [task for task, scores in draws.items() if len(scores) >= 2]
    if not tasks:
        return [unavailable(c, "needs two draws of random label words") for c in LABEL_CLAIMS]
    count = min(len(draws[task]) for task in tasks)
    words = [agreement_matrix(draws[task][:count]) for task in tasks]
    units = Units(runs={"label-word draws": count})
    row = decide(
        LABEL_WORDS,
        lambda i: (
            float(np.mean([pair_mean(m, i["label-word draws"]) for m in words])) - PAPER_AGREEMENT
        ),
        units,
        settings,
    )
    floors = [(noise_floor or {}).get(task, float("nan")) for task in tasks]
    if not all(floor >= PAPER_AGREEMENT for floor in floors):
        shown = ", ".join(f"{task} {floor:.2f}" for task, floor in zip(tasks, floors, strict=True))
        row = refuse(
            row,
            f"noise floor below the paper's {PAPER_AGREEMENT}: the same prompts' orders "
            f"ranked on two halves of the dev split agree at only {shown}, so the draws' "
            "agreement measures the dev size, not the label words (reported, not decided)",
            NOT_DECIDABLE,
        )
    rows = [row]
    if not all(len(controls.get(task, ())) >= count for task in tasks):
        return [*rows, unavailable(LABEL_WORDS_CONTROL, "no seed-only control rankings")]
    seeds = [agreement_matrix(controls[task][:count]) for task in tasks]

    def excess(indices: Mapping[str, np.ndarray]) -> float:
        chosen = indices["label-word draws"]
        gaps = [
            pair_mean(w, chosen) - pair_mean(c, chosen) for w, c in zip(words, seeds, strict=True)
        ]
        return float(np.mean(gaps))

    return [*rows, decide(LABEL_WORDS_CONTROL, excess, units, settings)]


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
        _accuracy_gap(
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


# --------------------------------------------------------------------------- controls


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


def pretraining_claim(
    pretrained: Mapping[str, np.ndarray],
    random_model: Mapping[str, np.ndarray],
    settings: BootstrapSettings,
) -> dict:
    """Pre-trained minus random-model top-neuron test accuracy (Table 3), with random
    prompts; each maps a task to bool ``[trials, samples]`` (the same test samples)."""
    tasks = [task for task in pretrained if task in random_model]
    if not tasks:
        return unavailable(PRETRAINING, "no control results")
    common = {task: pretrained[task] for task in tasks}
    return _accuracy_gap(PRETRAINING, common, random_model, settings)


def _accuracy_gap(
    claim: Claim,
    better: Mapping[str, np.ndarray],
    worse: Mapping[str, np.ndarray],
    settings: BootstrapSettings,
) -> dict:
    """``claim`` decided on the mean over ``better``'s tasks (panels) of the accuracy of
    ``better`` minus ``worse``, each a task's bool ``[trials, samples]`` on the same
    samples; trials > each task's test samples resampled (crossed)."""
    trials = {values.shape[0] for task in better for values in (better[task], worse[task])}
    if len(trials) != 1:
        return unavailable(claim, f"the compared results differ in trials ({sorted(trials)})")
    units = Units(
        runs={"trials": trials.pop()},
        samples={f"{task}: test samples": better[task].shape[1] for task in better},
    )

    def accuracy(correct: np.ndarray, task: str, indices: Mapping[str, np.ndarray]) -> float:
        return float(correct[indices["trials"]][:, indices[f"{task}: test samples"]].mean())

    def statistic(indices: Mapping[str, np.ndarray]) -> float:
        gaps = [
            accuracy(better[task], task, indices) - accuracy(worse[task], task, indices)
            for task in better
        ]
        return float(np.mean(gaps))

    return decide(claim, statistic, units, settings)


def control_correct(results: Sequence[Mapping]) -> dict[str, np.ndarray]:
    """Per task, bool ``[trials, samples]`` from per-trial top-neuron results (JSON)."""
    by_task: dict[str, list] = {}
    for result in sorted(results, key=lambda r: (r["task"], int(r["trial"]))):
        by_task.setdefault(result["task"], []).append(result)
    correct = {}
    for task, rows in by_task.items():
        first = rows[0]["test_idx"]
        if any(row["test_idx"] != first for row in rows):
            raise ValueError(f"task {task!r}: trials were scored on different test samples")
        correct[task] = np.array([row["test_correct"] for row in rows], dtype=bool)
    return correct


# --------------------------------------------------------------------------- the table


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
    ``scores`` each task to its per-trial predictivity (:func:`trial_scores`);
    ``controls`` the settings ``random_prompt`` and ``random_model`` to their per-trial
    top-neuron results; ``label_word_draws`` each task to its random-label-word draws'
    scores (empty: the experiment is off) and ``label_word_controls`` to its seed-only
    controls'; ``methods`` each tuning method to its perturbation rows per evaluation
    task; ``accuracies`` every trial's prompt-tuning metrics and top-neuron results
    (:func:`comparable_claim`; empty: the row is not measured); ``held_out`` the
    held-out correctness of the neurons the prompts and the Avg./Max. baselines select
    per task (subtask) panel (:func:`held_out_panels`, :func:`baseline_claims`);
    ``paper_design`` each evaluation task's perturbation file on the paper's design
    (:data:`TOP_PAPER`; empty: not measured); ``noise_floor`` §4.4's noise floor per
    task (:func:`label_words_claims`); ``primary`` the keys of the primary family
    (config ``findings.primary``; :data:`skillneurons.paper_a.registry.CLAIMS`).
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
