"""What paper B's continual-learning experiment reports (§6, Eqs. 4-5): the tables and
claims of B-T5 and B-F4.

Named for the experiment it reports: :mod:`skillneurons.paper_b.continual` trains the
orders (and imports torch); this module turns their results into B-T5's table with CL
(Eq. 4) and its ``a_ij`` matrices, B-F4's FG per stage (Eq. 5,
:mod:`skillneurons.paper_b.forgetting`) with its bands (:func:`forgetting_intervals`),
and the claims, free of torch so that the table and findings scripts start fast.
:data:`CONTINUAL_NAMES` is the one registry of the methods' names.

The B-T5 claims each compare two methods' CL (Eq. 4: the mean test accuracy over an
order's tasks after its last stage), averaged over the configured orders and the
training runs (config ``paper_b.runs``: every method and per-task FT trained once per
run, run ``r`` with seed + r), with the runs resampled as the top unit and every task's
test samples within them (the same draw for both methods, which test the same samples).

=========================================  ===========================================
claim                                      effect
=========================================  ===========================================
NCFT forgets less than SeqFT               CL(NCFT) - CL(SeqFT)
W-NCFT forgets less than SeqFT             CL(W-NCFT) - CL(SeqFT)
NCFT forgets less than SeqLoRA             CL(NCFT) - CL(SeqLoRA)
W-NCFT beats NCFT                          CL(W-NCFT) - CL(NCFT)
W-NCFT beats equal weights (ours)          CL(W-NCFT) - CL(W-NCFT, uniform weights)
NCFT stays below per-task FT               CL(per-task FT) - CL(NCFT)
W-NCFT stays below per-task FT             CL(per-task FT) - CL(W-NCFT)
=========================================  ===========================================

Per-task FT's "CL" is the mean over the order's tasks of each task's own model. W-NCFT
combines the stored neurons as Eq. 12 reads (``paper_b.continual.combine: literal``,
each stored neuron times its stage's weight: W-NCFT differs from NCFT on every stored
neuron; :mod:`skillneurons.paper_b.continual`), so "W-NCFT beats NCFT" compares two
different models whatever the sets' overlap. The uniform-weight control (ours) combines
the same stage snapshots the same way with equal weights
(:func:`skillneurons.paper_b.continual.uniform_stage_weights`): W-NCFT above it says
the similarity weighting helps, not the weighting of snapshots as such; with alike task
vectors Eq. 11's softmax at temperature 1 is itself near uniform, and this row may then
read negligible. B-F4's claims (:data:`RETENTION`) compare FG_j of NCFT and W-NCFT with
SeqFT's at every stage, over the same units as its bands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.paper_b.forgetting import RetentionSamples, retention
from skillneurons.paper_b.runs import RUNS, with_runs
from skillneurons.reporting.findings import (
    BootstrapSettings,
    Claim,
    Units,
    decide,
    every,
    unavailable,
)
from skillneurons.reporting.intervals import interval


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
    resample: :func:`retention_claims`). ``results`` and ``per_task``: every run's rows
    (:func:`forgetting_table`). Columns :data:`FORGETTING_COLUMNS`, the method named as
    in :data:`CONTINUAL_NAMES`."""
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


RESAMPLED = "training runs > test samples of each task"


def _claim(
    key: str, claim: str, effect: str, paper_value: str, margin: float, basis: str
) -> Claim:
    return Claim(claim, "§6, B-T5", effect, RESAMPLED, paper_value, margin, basis, key)


def _half(high: float, low: float) -> tuple[float, str]:
    """Half the paper's Standard-order gap ``high - low`` (points) as a margin."""
    return (high - low) / 200, f"half the paper's effect ({high} vs {low}, Standard order)"


#: Smallest effect of interest of the uniform-weight control (ours; no paper number).
UNIFORM_MARGIN = (0.01, "smallest effect of interest: 1 point of CL (no paper number)")

#: (claim, the method that should score higher, the lower one).
CONTRASTS = (
    (_claim("ncft_vs_seqft", "neuron-level continual fine-tuning (NCFT) forgets less "
            "than sequential fine-tuning", "CL(NCFT) - CL(SeqFT), mean over orders",
            "71.3 vs 47.1 (Standard)", *_half(71.3, 47.1)), "ncft", "seqft"),
    (_claim("wncft_vs_seqft", "W-NCFT forgets less than sequential fine-tuning",
            "CL(W-NCFT) - CL(SeqFT), mean over orders", "73.3 vs 47.1 (Standard)",
            *_half(73.3, 47.1)),
     "wncft", "seqft"),
    (_claim("ncft_vs_seqlora", "NCFT forgets less than sequential LoRA fine-tuning (SeqLoRA)",
            "CL(NCFT) - CL(SeqLoRA), mean over orders", "71.3 vs 53.8 (Standard)",
            *_half(71.3, 53.8)),
     "ncft", "seqlora"),
    (_claim("wncft_vs_ncft", "weighting the stored neurons by task similarity (W-NCFT) beats NCFT",
            "CL(W-NCFT) - CL(NCFT), mean over orders", "73.3 vs 71.3; every order",
            *_half(73.3, 71.3)),
     "wncft", "ncft"),
    (_claim("wncft_vs_uniform", "weighting the stored neurons by task similarity "
            "(W-NCFT) beats weighting them equally (ours)",
            "CL(W-NCFT) - CL(W-NCFT, uniform weights), mean over orders",
            "(no paper has it; the control of W-NCFT > NCFT)",
            *UNIFORM_MARGIN),
     "wncft", "wncft_uniform"),
    (_claim("ncft_below_per_task", "NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(NCFT), mean over orders", "77.2 vs 71.3 (Standard)",
            *_half(77.2, 71.3)),
     "per_task", "ncft"),
    (_claim("wncft_below_per_task", "W-NCFT stays below fine-tuning one model per task",
            "CL(per-task FT) - CL(W-NCFT), mean over orders", "77.2 vs 73.3 (Standard)",
            *_half(77.2, 73.3)),
     "per_task", "wncft"),
)  # fmt: skip

#: "In every order" (paper B, Table 5: W-NCFT beats NCFT in all 6 orders): each order
#: decided, an intersection-union test.
EVERY_ORDER = (
    (_claim("ncft_vs_seqft_every_order",
            "NCFT forgets less than sequential fine-tuning in every order",
            "per order CL(NCFT) - CL(SeqFT), each order decided (intersection-union)",
            "71.3 vs 47.1 (Standard mean)",
            *_half(71.3, 47.1)), "ncft", "seqft"),
    (_claim("wncft_vs_ncft_every_order", "W-NCFT beats NCFT in every order",
            "per order CL(W-NCFT) - CL(NCFT), each order decided (intersection-union)",
            "73.3 vs 71.3; every order", *_half(73.3, 71.3)), "wncft", "ncft"),
)  # fmt: skip

#: B-F4 (paper B-spec 18): NCFT and W-NCFT retain more than SeqFT at every stage.
RETENTION = tuple(
    (
        Claim(
            f"{name} retains more than sequential fine-tuning at every stage",
            "§6, B-F4",
            f"per order and stage j >= 2, FG_j({name}) - FG_j(SeqFT) (Eq. 5, a ratio; A_i "
            "per-task FT's accuracy), each decided (intersection-union)",
            RESAMPLED,
            "far above the baselines at every stage (Figure 4)",
            0.05,
            "smallest effect of interest: 5 points of retention (Figure 4 gives no number)",
            f"{method}_retention",
        ),
        method,
    )
    for name, method in (("NCFT", "ncft"), ("W-NCFT", "wncft"))
)


def _runs(results: Mapping[str, pd.DataFrame]) -> list[int]:
    """The training runs of the orders' results (their ``run`` column), in order."""
    return sorted({int(run) for frame in results.values() for run in frame["run"]})


def _final_correct(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, method: str, run: int
) -> list[dict[str, np.ndarray]]:
    """Per order, ``{eval_task: correct}`` of training run ``run`` after its last stage
    (per-task FT: each task's own model of that run)."""
    finals = []
    for frame in results.values():
        frame = frame[frame["run"] == run]
        last = frame["stage"].max()
        tasks = frame.loc[frame["stage"] == last, "eval_task"].unique()
        if method == "per_task":
            rows = per_task[(per_task["run"] == run) & per_task["eval_task"].isin(tasks)]
        else:
            rows = frame[(frame["method"] == method) & (frame["stage"] == last)]
        finals.append({row.eval_task: np.asarray(row.correct, bool) for row in rows.itertuples()})
    return finals


def continual_claims(
    results: Mapping[str, pd.DataFrame],
    per_task: pd.DataFrame,
    settings: BootstrapSettings,
    contrasts: Sequence = CONTRASTS,
) -> list[dict]:
    """The module docstring's rows: ``contrasts`` (the mean over orders),
    :data:`EVERY_ORDER`, :data:`RETENTION`. ``results``: per order, its SeqFT, SeqLoRA
    and NCFT files of every run concatenated (``run``, then
    :data:`skillneurons.paper_b.continual.COLUMNS`); ``per_task``: every task's per-task
    FT results of every run. An order's effect is the mean over the drawn runs."""
    if not results:
        claims = [claim for claim, *_ in (*contrasts, *EVERY_ORDER, *RETENTION)]
        return [unavailable(claim, "no continual-learning order") for claim in claims]
    runs = _runs(results)
    finals = {
        method: [_final_correct(results, per_task, method, run) for run in runs]
        for method in CONTINUAL_NAMES
    }
    sizes = Units(
        runs={RUNS: len(runs)},
        samples={
            f"{task}: test samples": len(correct)
            for order in finals["seqft"][0]
            for task, correct in order.items()
        },
    )

    def cl(method: str, indices: Mapping[str, np.ndarray]) -> np.ndarray:
        """Per drawn run and order, CL (Eq. 4) on the drawn test samples."""
        return np.array(
            [
                [
                    np.mean(
                        [c[indices[f"{task}: test samples"]].mean() for task, c in order.items()]
                    )
                    for order in finals[method][run]
                ]
                for run in indices[RUNS]
            ]
        )

    orders = list(results)
    rows = []
    for (claim, higher, lower), each_order in [
        *((contrast, False) for contrast in contrasts),
        *((contrast, True) for contrast in EVERY_ORDER),
    ]:
        missing = [
            m for m in (higher, lower) if any(not order for run in finals[m] for order in run)
        ]
        if missing:
            rows.append(unavailable(claim, f"no results for {missing}"))
            continue

        def gap(idx, h=higher, lo=lower) -> np.ndarray:
            """Per order, the CL gap averaged over the drawn runs."""
            return (cl(h, idx) - cl(lo, idx)).mean(axis=0)

        if not each_order:
            mean = lambda idx, gap=gap: float(gap(idx).mean())  # noqa: E731
            rows.append(decide(claim, mean, sizes, settings))
            continue
        parts = [
            (order, lambda idx, gap=gap, o=o: float(gap(idx)[o]), sizes)
            for o, order in enumerate(orders)
        ]
        rows.append(every(claim, parts, settings, unit="order"))
    return [*rows, *retention_claims(results, per_task, settings)]


def retention_claims(
    results: Mapping[str, pd.DataFrame], per_task: pd.DataFrame, settings: BootstrapSettings
) -> list[dict]:
    """B-F4's claims (:data:`RETENTION`): per order and stage ``j >= 2``, FG_j (Eq. 5, a
    ratio: :meth:`~skillneurons.paper_b.forgetting.RetentionSamples.fg`, each run
    against its own per-task FT) of the method minus SeqFT's, the mean over the drawn
    runs; the effect is the smallest over orders and stages ("at every stage"), the runs
    and every task's test samples resampled (B-F4's bands resample the same:
    :func:`forgetting_intervals`)."""
    samples = RetentionSamples.of(results, per_task, ("seqft", "ncft", "wncft"))
    if not samples.orders or max(len(tasks) for tasks, _ in samples.orders.values()) < 2:
        return [unavailable(claim, "no order of two stages") for claim, _ in RETENTION]
    units = samples.units(list(samples.alone[0]))

    def gaps(method: str, indices) -> np.ndarray:
        """Per order and stage, the method's FG_j minus SeqFT's (mean over the runs)."""
        found = []
        for order in samples.orders:
            gap = samples.fg(order, method, indices) - samples.fg(order, "seqft", indices)
            found.append(gap.mean(axis=0))
        return np.concatenate(found)

    stages = [
        f"{order} stage {stage}"
        for order, (tasks, _) in samples.orders.items()
        for stage in range(2, len(tasks) + 1)
    ]
    rows = []
    for claim, method in RETENTION:
        absent = [m for m in (method, "seqft") if not samples.has(m)]
        if absent:
            rows.append(unavailable(claim, f"no results for {', '.join(absent)}"))
            continue
        parts = [
            (name, lambda i, m=method, p=p: float(gaps(m, i)[p]), units)
            for p, name in enumerate(stages)
        ]
        rows.append(every(claim, parts, settings, unit="stage", mean_row=False))
    return rows
