"""The settings of table A-ablation (config ``ablation.settings``), free of torch so the
Snakefile loads fast; :mod:`skillneurons.paper_a.ablation` sweeps them."""

from __future__ import annotations

from collections.abc import Mapping

#: A setting's perturbation keys (config ``perturbation``) and the ranking scope.
SETTING_KEYS = ("kind", "sigma", "unit", "positions", "scope")


def resolve_settings(
    grid: Mapping[str, Mapping[str, object]], perturbation: Mapping[str, object], scope: str
) -> dict[str, dict]:
    """Every setting of config ``ablation.settings`` with all of :data:`SETTING_KEYS`:
    its own values, else the config's ``perturbation`` block and ``ranking.scope``."""
    defaults = {key: perturbation[key] for key in SETTING_KEYS if key != "scope"}
    return {name: {**defaults, "scope": scope, **setting} for name, setting in grid.items()}


def shown_setting(setting: Mapping[str, object]) -> dict:
    """A setting's keys as the table shows them: no sigma or unit for the kinds that
    add no noise (zero, baseline)."""
    noise = setting["kind"] == "gaussian"
    return {
        key: setting[key] if noise or key not in ("sigma", "unit") else None
        for key in SETTING_KEYS
    }
