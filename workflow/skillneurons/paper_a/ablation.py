"""Does the central claim hold under other perturbations? (paper A, §4.2; table A-ablation)

Paper A's central claim is that perturbing a task's top skill neurons hurts it more
than perturbing random neurons. The default measures it under one design (Gaussian
noise of 1 neuron std at every position, global scope); this ablation repeats the
measurement on the same prompt-tuned trials under the designs an objection could name:
the noise scale and its unit, the ranking scope, the kind of perturbation (noise,
zero, the baseline activation ``a_bsl`` of Eq. 3) and the positions perturbed. Each
setting sweeps the evaluation task's own predictivity order and as many layer-matched
random orders as ``perturbation.layer_matched_orders`` over ``perturbation.rates``, and
decides the claim with the findings engine: area(layer-matched random) - area(own
order), a hierarchical bootstrap over trials > random orders > test samples, the
verdicts Holm-adjusted over the table's settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from skillneurons.neurons.perturbation.curve_table import LAYER_MATCHED, write_curve_file
from skillneurons.neurons.perturbation.files import TrialModel
from skillneurons.neurons.perturbation.orders import NamedOrder, layer_matched_random_orders
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_a.ablation_settings import SETTING_KEYS, shown_setting
from skillneurons.paper_a.findings.gaps import gap_claim
from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN, task_curves
from skillneurons.reporting.findings import BootstrapSettings, Claim, holm


def ablation_orders(
    ranking: Ranking, task: str, scope: str, count: int, seed: int
) -> list[NamedOrder]:
    """The task's own order under ``scope`` and ``count`` layer-matched random orders
    (:func:`skillneurons.neurons.perturbation.orders.layer_matched_random_orders`, seeded by
    ``seed + 1`` as the perturbation curves' are)."""
    own = ranking.order(scope)
    widths = [ranking.shape[1]] * ranking.shape[0]
    matched = layer_matched_random_orders(own, widths, count, seed + 1)
    return [
        NamedOrder(task, "task", own),
        *(
            NamedOrder("random_layer_matched", LAYER_MATCHED, order, repeat)
            for repeat, order in enumerate(matched)
        ),
    ]


def perturbation_block(setting: Mapping[str, object], base: Mapping[str, object]) -> dict:
    """The perturbation settings of one resolved setting: ``base`` (the config's
    ``perturbation`` block without the seed) with the setting's keys but the scope."""
    return {**base, **{key: setting[key] for key in SETTING_KEYS if key != "scope"}}


def sweep_settings(
    trials: Sequence[TrialModel],
    ranking: Ranking,
    task: str,
    settings: Mapping[str, Mapping[str, object]],
    *,
    base: Mapping[str, object],
    rates: Sequence[float],
    layer_matched_orders: int,
    batch_size: int,
) -> pd.DataFrame:
    """Perturbation curves of every trial under every named setting: the rows of
    :func:`skillneurons.neurons.perturbation.curve_table.trial_curve_frame` with the
    setting's name in ``setting``; ``layer_matched_orders`` random orders per trial
    (config ``perturbation.layer_matched_orders``)."""
    frames = []
    for name, setting in settings.items():
        block = perturbation_block(setting, base)
        for model in trials:
            orders = ablation_orders(
                ranking, task, str(setting["scope"]), layer_matched_orders, model.seed
            )
            frame = model.perturb(
                orders, rates=rates, settings=block, batch_size=batch_size, eval_task=task
            )
            frames.append(frame.assign(setting=name))
    return pd.concat(frames, ignore_index=True)


def write_ablation_file(
    path: str,
    trials: Sequence[TrialModel],
    ranking: Ranking,
    identity: Mapping[str, object],
    *,
    sample_idx: Sequence[int],
    settings: Mapping[str, Mapping[str, object]],
    base: Mapping[str, object],
    rates: Sequence[float],
    layer_matched_orders: int,
    batch_size: int,
) -> None:
    """Sweep every setting (:func:`sweep_settings`) and write the evaluation task's
    ablation file atomically: ``results/{model}/ablation/{eval_task}.parquet``, the
    columns of a perturbation file plus ``setting``; metadata ``identity`` (``model``,
    ``eval_task``), the evaluated samples' ``idx`` (the order of every row's
    ``correct``), the resolved settings, the rates and the trials' seeds."""
    curves = sweep_settings(
        trials,
        ranking,
        str(identity["eval_task"]),
        settings,
        base=base,
        rates=rates,
        layer_matched_orders=layer_matched_orders,
        batch_size=batch_size,
    )
    metadata = {
        **identity,
        "sample_idx": [int(i) for i in sample_idx],
        "settings": dict(settings),
        "rates": list(rates),
        "seeds": [model.seed for model in trials],
    }
    write_curve_file(path, curves, metadata)


def setting_claim(name: str, setting: Mapping[str, object]) -> Claim:
    shown = ", ".join(f"{k} {v}" for k, v in shown_setting(setting).items() if v is not None)
    return Claim(
        f"top skill neurons matter more than random ones ({name}: {shown})",
        "§4.2, A-F4/A-F11",
        "area(layer-matched random) - area(own order)",
        "trials, random orders, test samples",
        "own order below random (Figure 4)",
        margin=AREA_MARGIN,
        margin_basis=AREA_BASIS,
    )


#: The decided columns of a row of table A-ablation.
DECIDED = ("estimate", "ci_low", "ci_high", "margin", "alpha", "verdict", "runs", "resampled")


def ablation_table(
    curves: pd.DataFrame,
    settings: Mapping[str, Mapping[str, object]],
    bootstrap: BootstrapSettings,
) -> pd.DataFrame:
    """One row per evaluation task and resolved setting (:func:`resolve_settings`) of
    ``curves`` (every evaluation task's ablation file): its keys, the unperturbed
    accuracy, and the findings row of the central claim under it (:data:`DECIDED` and
    the note), Holm-adjusted over the whole table."""
    rows, decided = [], []
    for (task, name), frame in curves.groupby(["eval_task", "setting"], sort=False):
        setting = settings[name]
        decided.append(
            gap_claim(
                setting_claim(name, setting),
                {str(task): task_curves(frame)},
                LAYER_MATCHED,
                bootstrap,
            )
        )
        unperturbed = frame.loc[frame["rate"] == 0, "accuracy"]
        rows.append(
            {
                "setting": name,
                **shown_setting(setting),
                "eval_task": str(task),
                "unperturbed_accuracy": float(unperturbed.mean()) if len(unperturbed) else np.nan,
            }
        )
    adjusted = holm(decided, bootstrap.alpha)
    return pd.DataFrame(
        [
            {**row, **{key: done[key] for key in (*DECIDED, "note")}}
            for row, done in zip(rows, adjusted, strict=True)
        ]
    )
