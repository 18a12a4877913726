"""Control settings of Table 3 of paper A: where do skill neurons come from?

Paper A (§5, Table 3) finds neurons in three settings without prompt tuning and
compares their top-neuron accuracy with the tuned prompts':

``random_prompt``
    the pre-trained model with randomly initialised, untuned soft prompts;
``hard_prompt``
    the pre-trained model with a hand-written prompt whose token embeddings take the
    place of the soft prompts (untuned);
``random_model``
    a randomly initialised model of the same architecture with random prompts.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the constants below are read by the Snakefile: keep imports light
    import pandas as pd

    from skillneurons.models.loading import LoadedModel
    from skillneurons.models.prompted import PromptedClassifier
    from skillneurons.paper_a.skill_neurons import SampleGroup

CONTROLS = ("random_prompt", "hard_prompt", "random_model")
#: Columns of Table A-T3: the controls and the tuned prompts.
TABLE_SETTINGS = (*CONTROLS, "tuned")

#: Hand-written prompts per task type, used when the config names none for a task.
DEFAULT_HARD_PROMPTS = {
    "sentiment": "What is the sentiment of this text? It is",
    "inference": "Does the first sentence imply the second one? The answer is",
    "topic": "What is the topic of this article? It is about",
    "paraphrase": "Do the two texts say the same thing? The answer is",
}


def control_classifier(
    variant: str,
    model: Mapping[str, object],
    label_words: Sequence[str],
    *,
    prompt_length: int,
    init_std: float,
    seed: int,
    hard_prompt: str,
) -> tuple[LoadedModel, PromptedClassifier]:
    """The model and untuned classifier of one Table 3 setting (see the module docstring)."""
    import torch

    from skillneurons.models.loading import load_model
    from skillneurons.models.prompted import PromptedClassifier

    if variant not in CONTROLS:
        raise ValueError(f"control {variant!r} is not one of {', '.join(CONTROLS)}")
    loaded = load_model(**model, random_init=variant == "random_model", seed=seed)
    if variant != "hard_prompt":
        return loaded, PromptedClassifier(loaded, label_words, prompt_length, init_std, seed)
    ids = loaded.tokenizer(hard_prompt, add_special_tokens=False)["input_ids"]
    if not ids:
        raise ValueError(f"hard prompt {hard_prompt!r} has no tokens")
    classifier = PromptedClassifier(loaded, label_words, len(ids), init_std, seed)
    with torch.no_grad():
        classifier.prompts.copy_(loaded.model.get_input_embeddings().weight[ids])
    return loaded, classifier


def control_skill_neuron_accuracy(
    loaded: LoadedModel,
    classifier: PromptedClassifier,
    splits: Mapping[str, pd.DataFrame],
    groups: Mapping[str, SampleGroup],
    *,
    max_length: int,
    batch_size: int,
    baseline_samples: int | None = None,
    max_samples: int | None = None,
    subset_seed: int,
    task: str = "the task",
) -> dict:
    """Table 3's accuracy of one control: the same procedure as the tuned prompts'.

    Baseline over train (Eq. 3), top neuron(s) on dev, accuracy on test
    (:func:`skillneurons.paper_a.skill_neurons.skill_neuron_accuracy`); the dev and test
    activations go through temporary dumps, so memory stays bounded. Subsets
    (``baseline_samples``, ``max_samples``) are the seeded (``subset_seed``),
    label-stratified draws of rule ``dump_activations``, so a control reads the same
    rows as the tuned prompts of ``task``.
    """
    from skillneurons.models.encoding import encode_frame
    from skillneurons.neurons.activations import baseline_activation, dump_activations
    from skillneurons.paper_a.skill_neurons import skill_neuron_accuracy

    encoded = {name: encode_frame(loaded, frame, max_length) for name, frame in splits.items()}
    baseline = baseline_activation(
        classifier,
        encoded["train"],
        batch_size,
        max_samples=baseline_samples,
        seed=subset_seed,
        name=f"{task}/train (activations.baseline_samples)",
    ).numpy()
    with tempfile.TemporaryDirectory() as folder:
        dumps = {}
        for name in ("dev", "test"):
            dumps[name] = str(Path(folder) / f"{name}.parquet")
            dump_activations(
                classifier,
                encoded[name],
                splits[name]["idx"].tolist(),
                dumps[name],
                batch_size=batch_size,
                max_samples=max_samples,
                seed=subset_seed,
                name=f"{task}/{name} (activations.max_samples)",
                metadata={"split": name},
            )
        return skill_neuron_accuracy(dumps["dev"], dumps["test"], baseline, groups)
