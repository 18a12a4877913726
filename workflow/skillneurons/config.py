"""Validation of the pipeline configuration against ``workflow/schemas/config.schema.yaml``.

:func:`validate_config` fills defaults from the schema, rejects unknown keys and
wrong values with a message that names the key, and checks that every task is
known. ``python -m skillneurons.config [ROOT]`` (``make docs``) rewrites the generated
docs: ``docs/configuration.md`` from the schema and the embedded default
(``config.yaml``), and the README's figure table from the papers' figure registries
(:mod:`skillneurons.paper_a.registry`, :mod:`skillneurons.paper_b.registry`).
"""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import jsonschema
import yaml

from skillneurons import code_map
from skillneurons.data.generation_splits import GENERATION_TASKS
from skillneurons.data.tasks import TaskError, TaskSpec, resolve_tasks
from skillneurons.models.label_words import task_label_words
from skillneurons.models.specs import ModelSourceError, resolve_models
from skillneurons.paper_a.registry import CLAIMS as PAPER_A_CLAIMS
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import CLAIMS as PAPER_B_CLAIMS
from skillneurons.paper_b.registry import PAPER_B
from skillneurons.reporting import registry

WORKFLOW = Path(__file__).resolve().parents[1]
SCHEMA_PATH = WORKFLOW / "schemas" / "config.schema.yaml"
EMBEDDED_PATH = WORKFLOW.parent / "config.yaml"
RULES = WORKFLOW / "rules"


class ConfigError(ValueError):
    """The configuration does not match the schema; the message names the key."""


#: What a user task or model name may hold: it becomes a ``{task}`` / ``{model}``
#: wildcard and a folder name of every output path.
NAME = re.compile(r"[A-Za-z0-9_-]+")


def _check_names(config: Mapping) -> None:
    """Refuse ``task_definitions`` and ``model_definitions`` names outside :data:`NAME`."""
    for section, kind in (("task_definitions", "task"), ("model_definitions", "model")):
        for name in config[section]:
            if not NAME.fullmatch(name):
                raise ConfigError(
                    f"config key '{section}.{name}': {kind} name {name!r} may hold only "
                    f"letters, digits, underscores and hyphens (it is the {{{kind}}} wildcard "
                    f"and a folder of every output path); rename it, e.g. to "
                    f"{re.sub(r'[^A-Za-z0-9_-]+', '_', name).strip('_') or kind!r}"
                )


#: Values of ``paper_b.generalization.similarity`` that were renamed, and why.
RENAMED_SIMILARITIES = {
    "masked": "it is a norm-weighted overlap of the two neuron sets, not a cosine of "
    "their parameters' directions, and is now named 'norm_weighted_overlap'",
    "delta": "it was the norm-weighted overlap of the sets on the fine-tuning's changes, "
    "not a cosine of their directions; the cosine of the sets' mean changes is now named "
    "'delta_centroid'",
}


def _check_renamed(config: Mapping, schema: Mapping) -> None:
    """Refuse a renamed ``paper_b.generalization.similarity`` (:data:`RENAMED_SIMILARITIES`)
    with the names it may take now."""
    value = config
    for key in ("paper_b", "generalization", "similarity"):
        value = value.get(key) if isinstance(value, Mapping) else None
    if isinstance(value, str) and value in RENAMED_SIMILARITIES:
        generalization = schema["properties"]["paper_b"]["properties"]["generalization"]
        names = generalization["properties"]["similarity"]["enum"]
        raise ConfigError(
            f"config key 'paper_b.generalization.similarity': {value!r} is no longer a "
            f"name: {RENAMED_SIMILARITIES[value]}; use one of {', '.join(names)} "
            "(centroid is paper B §5.2's cosine, the default)"
        )


#: Config keys that were renamed: the old key's path -> its new name.
RENAMED_KEYS = {
    ("perturbation", "random_orders"): "layer_matched_orders",
    ("paper_b", "comparison", "random_orders"): "layer_matched_orders",
}


def _check_renamed_keys(config: Mapping) -> None:
    """Refuse a key of :data:`RENAMED_KEYS` with the name it has now."""
    for path, new in RENAMED_KEYS.items():
        section = config
        for key in path[:-1]:
            section = section.get(key) if isinstance(section, Mapping) else None
        if isinstance(section, Mapping) and path[-1] in section:
            old, renamed = ".".join(path), ".".join((*path[:-1], new))
            raise ConfigError(
                f"config key '{old}' is now '{renamed}' (it counts layer-matched random "
                "orders); rename it in your config file"
            )


def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    return yaml.safe_load(Path(path).read_text())


def _fill_defaults(config: dict, schema: Mapping) -> None:
    """Set schema defaults for absent keys, recursively through nested objects."""
    for key, sub in schema.get("properties", {}).items():
        if key not in config and "default" in sub:
            config[key] = copy.deepcopy(sub["default"])
        if isinstance(config.get(key), dict):
            _fill_defaults(config[key], sub)
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        for key, value in config.items():
            if key not in schema.get("properties", {}) and isinstance(value, dict):
                _fill_defaults(value, extra)


def _describe(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(part) for part in error.absolute_path) or "<top level>"
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unexpected = sorted(set(error.instance) - set(allowed))
        where = f"under '{path}'" if error.absolute_path else "at the top level"
        listing = f"; allowed keys: {', '.join(allowed)}" if allowed else ""
        return f"unknown config key(s) {', '.join(map(repr, unexpected))} {where}{listing}"
    return f"config key '{path}': {error.message}"


def _resolve_tasks(config: Mapping) -> dict[str, TaskSpec]:
    """The configured tasks; an error names the ``task_definitions`` entry at fault, or
    ``tasks`` when a listed task is not defined."""
    for name, definition in config["task_definitions"].items():
        try:
            resolve_tasks([], {name: definition})
        except TaskError as error:
            raise ConfigError(f"config key 'task_definitions.{name}': {error}") from error
    try:
        return resolve_tasks(config["tasks"], config["task_definitions"])
    except TaskError as error:
        raise ConfigError(f"config key 'tasks': {error}") from error


def validate_config(config: Mapping, schema: Mapping | None = None) -> dict:
    """Return a validated copy of ``config`` with every default filled in.

    Raises
    ------
    ConfigError
        naming each offending key (unknown keys, wrong types, out-of-range values),
        a task or model name that cannot be a wildcard (:data:`NAME`), or the
        unknown task with the list of known ones.
    """
    schema = schema or load_schema()
    _check_renamed(config, schema)
    _check_renamed_keys(config)
    checked = copy.deepcopy(dict(config))
    _fill_defaults(checked, schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(checked), key=lambda e: list(e.absolute_path))
    if errors:
        raise ConfigError("invalid configuration: " + "; ".join(map(_describe, errors)))
    _check_names(checked)
    tasks = _resolve_tasks(checked)
    try:
        resolve_models(checked["models"], checked["model_definitions"])
    except ModelSourceError as error:
        raise ConfigError(f"config key 'models': {error}") from error
    for task, words in checked["label_words"].items():
        if task in tasks and len(words) != tasks[task].num_labels:
            raise ConfigError(
                f"config key 'label_words.{task}': {len(words)} words for "
                f"{tasks[task].num_labels} labels {list(tasks[task].label_names)}"
            )
    for name, spec in tasks.items():
        try:
            task_label_words(spec, checked["label_words"].get(name))
        except ValueError as error:
            raise ConfigError(str(error)) from error
    _check_generation(checked)
    _check_primary(checked)
    return checked


def _check_primary(checked: Mapping) -> None:
    """Every key of ``findings.primary`` names a claim of the papers' registries (a
    suffix for a pair of groups or the generation group allowed)."""
    known = {**PAPER_A_CLAIMS, **PAPER_B_CLAIMS}
    suffixes = ("", "_gen", "_cls_gen", "_gen_cls", "_gen_gen")
    unknown = [
        key
        for key in checked["findings"]["primary"]
        if not any(key.endswith(s) and key[: len(key) - len(s)] in known for s in suffixes)
    ]
    if unknown:
        raise ConfigError(
            f"config key 'findings.primary': {unknown} name no claim; known claims: "
            f"{', '.join(known)}"
        )


def _check_generation(checked: Mapping) -> None:
    """paper_b.generation names known generation tasks and configured models."""
    generation = checked["paper_b"]["generation"]
    unknown = [task for task in generation["tasks"] if task not in GENERATION_TASKS]
    if unknown:
        raise ConfigError(
            f"config key 'paper_b.generation.tasks': {unknown} are not generation tasks; "
            f"known: {', '.join(GENERATION_TASKS)}"
        )
    missing = [model for model in generation["models"] if model not in checked["models"]]
    if missing:
        raise ConfigError(
            f"config key 'paper_b.generation.models': {missing} are not among the "
            f"configured models {checked['models']}; add them to models or drop them here"
        )


def _shown(value) -> str:
    dumped = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**9)
    return dumped.strip().removesuffix("...").strip()


_ABSENT = object()


def _rows(schema: Mapping, embedded: Mapping, prefix: str = "") -> list[tuple[str, str, str, str]]:
    rows = []
    for key, sub in schema.get("properties", {}).items():
        name = f"{prefix}{key}"
        description = " ".join(sub.get("description", "").split())
        value = embedded.get(key, _ABSENT) if isinstance(embedded, Mapping) else _ABSENT
        if "properties" in sub:
            rows.append((name, "", "", description))
            rows.extend(_rows(sub, value if value is not _ABSENT else {}, f"{name}."))
            continue
        default = sub.get("default")
        changed = value is not _ABSENT and value != default
        rows.append((name, _shown(default), _shown(value) if changed else "", description))
    return rows


def markdown_table(schema: Mapping | None = None, embedded: Mapping | None = None) -> str:
    """The configuration table of ``docs/configuration.md``: key, the schema's default,
    the embedded default's value where ``config.yaml`` sets another, and the description."""
    schema = schema or load_schema()
    if embedded is None:
        embedded = yaml.safe_load(EMBEDDED_PATH.read_text())
    lines = [
        "| key | default | `config.yaml` | description |",
        "|---|---|---|---|",
    ]
    for key, default, value, description in _rows(schema, embedded):
        shown = [f"`{text}`" if text else "" for text in (default, value)]
        lines.append(f"| `{key}` | {shown[0]} | {shown[1]} | {description.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


CONFIGURATION_INTRO = """# Configuration

Generated from `workflow/schemas/config.schema.yaml` and `config.yaml` by
`python -m skillneurons.config` (`make docs`); a test fails when this file differs from
what the schema generates, so edit the schema, not this page.

A run reads `config.yaml` (the embedded default) and the files given with
`--configfile`, later ones overriding earlier ones key by key; `--config key=value`
overrides single keys. Unknown keys and wrong values fail before any job runs, naming
the key. The column `config.yaml` shows the embedded default's value where it differs
from the schema's default. Shipped configurations: `config.yaml` (CPU minutes),
`configs/smoke.yaml` (the tests' tiny runs), `configs/smollm.yaml` (SmolLM2-135M on
CPU), `configs/decisive.yaml` and `configs/decisive-smollm.yaml` (on top of
`configs/smollm.yaml`; sized to decide the primary claims, MiniLM and SmolLM2 on CPU),
`configs/ablation.yaml` (on top of another: table A-ablation), `configs/paper.yaml`
(paper A's settings, one GPU per job) and `configs/llm.yaml` (7B models,
[cluster](cluster.md)).

"""


def configuration_page() -> str:
    """``docs/configuration.md``: :data:`CONFIGURATION_INTRO` and :func:`markdown_table`."""
    return CONFIGURATION_INTRO + markdown_table()


FIGURE_TABLE = ("<!-- figure-table:begin -->\n", "<!-- figure-table:end -->")
_RULE = re.compile(r"^(?:rule (\w+):|use rule \w+ as (\w+) with:)", re.M)


def rule_files() -> dict[str, str]:
    """Rule name -> the ``.smk`` file defining it, relative to ``workflow/rules``."""
    found = {}
    for path in sorted(RULES.rglob("*.smk")):
        for match in _RULE.finditer(path.read_text()):
            found[match.group(1) or match.group(2)] = path.relative_to(RULES).as_posix()
    return found


def figure_table() -> str:
    """The README's figure table: every paper output of the figure registries (paper A,
    then paper B and the A-vs-B comparison)."""
    return registry.markdown_table(PAPER_A + PAPER_B, rule_files())


def _replace_between(text: str, markers: tuple[str, str], table: str, path: Path) -> str:
    begin, end = markers
    if begin not in text or end not in text:
        raise ValueError(f"{path} lacks the markers {begin.strip()} and {end}")
    head, rest = text.split(begin, 1)
    return f"{head}{begin}{table}{end}{rest.split(end, 1)[1]}"


def update_docs(root: str | Path) -> None:
    """Rewrite the generated docs under ``root``: ``docs/configuration.md``
    (:func:`configuration_page`), the README's figure table between its markers
    (:func:`figure_table`) and the code map of ``docs/development.md``
    (:func:`skillneurons.code_map.code_map`)."""
    root = Path(root)
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "configuration.md").write_text(configuration_page())
    readme = root / "README.md"
    readme.write_text(_replace_between(readme.read_text(), FIGURE_TABLE, figure_table(), readme))
    development = root / "docs" / "development.md"
    development.write_text(
        _replace_between(
            development.read_text(), code_map.MARKERS, code_map.code_map(), development
        )
    )


if __name__ == "__main__":  # python -m skillneurons.config [ROOT]
    update_docs(sys.argv[1] if len(sys.argv) > 1 else ".")
