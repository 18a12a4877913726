"""Several prompt-tuning trials of one task through one forward pass (paper A, §2.1).

The backbone is frozen and the trials differ only in their soft prompts, so ``k``
trials' batches can go through the model as one batch of ``k x B`` rows, each row with
its own trial's prompts. :class:`StackedPrompts` holds the trials' prompts as
one parameter ``[k, l, hidden]``; a batch is a list of row groups of equal size, group
``j`` read with the prompts of trial ``trials[j]``. Gradients of a trial's prompts come
only from its own rows, and Adam is per entry, so one Adam over the stacked parameter
with the sum of the trials' mean losses moves each trial as its own Adam would
(:mod:`skillneurons.models.trial_training`). :func:`predict_trials` evaluates the
trials on a split in the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from skillneurons.models.encoding import EncodedSplit, repeated_batch
from skillneurons.models.prompted import PromptedClassifier
from skillneurons.models.training import batches_by_length


class StackedPrompts(torch.nn.Module):
    """The soft prompts of ``classifiers`` (trials on one backbone, one set of label
    words) stacked into one trainable parameter ``prompts`` ``[k, l, hidden]``.

    The classifiers are kept, not registered as submodules (they share the backbone);
    :meth:`load_states` sets the trials' prompts in both.
    """

    def __init__(self, classifiers: Sequence[PromptedClassifier]):
        super().__init__()
        first = classifiers[0]
        for other in classifiers[1:]:
            if other.backbone is not first.backbone or other.label_ids != first.label_ids:
                raise ValueError("stacked trials must share one backbone and its label words")
            if other.prompts.shape != first.prompts.shape:
                raise ValueError("stacked trials must have prompts of one shape")
        self.classifiers = list(classifiers)
        self.backbone = first.backbone
        device = first.backbone.get_input_embeddings().weight.device
        stacked = torch.stack([c.prompts.detach() for c in classifiers]).to(device)
        self.prompts = torch.nn.Parameter(stacked)

    @property
    def trials(self) -> int:
        return self.prompts.shape[0]

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        *,
        trials: Sequence[int],
    ) -> torch.Tensor:
        """Label logits ``[rows, labels]`` of a batch made of ``len(trials)`` equal row
        groups, group ``j`` with trial ``trials[j]``'s prompts (``labels`` is ignored)."""
        groups = len(trials)
        rows = input_ids.shape[0] // groups
        if rows * groups != input_ids.shape[0]:
            raise ValueError(f"{input_ids.shape[0]} rows do not split into {groups} groups")
        chosen = self.prompts[list(trials)]
        prompts = chosen[:, None].expand(-1, rows, -1, -1).reshape(-1, *chosen.shape[1:])
        template = self.classifiers[0]
        hidden = template.answer_hidden(input_ids, attention_mask, token_type_ids, prompts)
        return template.scorer(hidden)

    def load_states(self, states: Sequence[dict[str, torch.Tensor]]) -> None:
        """Load ``states[i]`` (``{"prompts": [l, hidden]}``) as trial ``i``'s prompts,
        here and in classifier ``i``."""
        with torch.no_grad():
            for trial, (classifier, state) in enumerate(
                zip(self.classifiers, states, strict=True)
            ):
                self.prompts[trial].copy_(state["prompts"])
                classifier.load_prompt_state(state)


@torch.inference_mode()
def predict_trials(
    stacked: StackedPrompts,
    split: EncodedSplit,
    batch_size: int,
    pad_id: int,
    trials: Sequence[int],
) -> torch.Tensor:
    """Predicted labels ``[len(trials), samples]`` of each of ``trials`` on ``split``,
    in split order: the batches of :func:`skillneurons.models.training.predict`, each
    sent once per trial in one forward pass."""
    was_training = stacked.training
    stacked.eval()
    predictions = torch.empty(len(trials), len(split), dtype=torch.long)
    device = stacked.prompts.device
    for rows in batches_by_length(split, batch_size):
        batch = repeated_batch(split.batch(rows, pad_id, device), len(trials))
        logits = stacked(**batch, trials=trials)
        predictions[:, rows] = logits.argmax(dim=-1).view(len(trials), len(rows)).cpu()
    stacked.train(was_training)
    return predictions
