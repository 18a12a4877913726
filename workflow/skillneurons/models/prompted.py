"""Soft prompts in front of a frozen backbone (paper A, §2.1, Eq. 1).

Layout of every input sequence (:data:`LAYOUTS`, recorded in every prompt file):

- masked LMs and bare encoders: ``[MASK] p_1 .. p_l  <tokenizer(text_a, text_b)>``
  (the original code's layout); prompt token ``p_i`` sits at position ``i``, the answer
  is read at the ``[MASK]``, position 0;
- causal LMs: ``<tokenizer(text_a, text_b)>  p_1 .. p_l``, padded on the left, so that
  the prompts are the last ``l`` positions of every row and, under causal attention,
  see the whole input; the answer is the next-token prediction after ``p_l`` (the last
  position). Prompts in front of the input would never see it: every activation at a
  prompt position would be the same for every input, and every neuron's predictivity
  the majority rate. Position ids count only real tokens (for models that take them),
  so the left padding does not shift the input's positions.

:attr:`PromptedClassifier.prompt_positions` gives the prompt positions, which the
activation capture of paper A (§3.1) reads (negative for causal LMs: counted from the
end of the sequence); :meth:`PromptedClassifier.input_positions` gives where each
input token sits.

Prompt file (``results/{model}/prompt_tuning/{task}/trial{trial}/prompt.safetensors``
and every other prompt a rule saves): one tensor ``prompts`` ``[l, hidden]`` with JSON
metadata: what the caller adds (task, model, trial, seed, ...), the label words and
their ids, the scoring mode, the prompt length and the layout (:func:`write_prompt`).
:func:`classifier_from_prompt_file` rebuilds the classifier from such a file.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence

import torch

from skillneurons.infra.io import read_tensor_metadata, read_tensors, write_tensors
from skillneurons.models.loading import LoadedModel
from skillneurons.models.verbalizer import SCORING, LabelScorer, label_token_ids

#: The sequence layout by kind of model (see the module docstring).
LAYOUTS = {"masked": "[MASK] p_1..p_l input", "causal": "input p_1..p_l"}
#: How soft prompts start (:class:`PromptedClassifier`'s ``init``; config
#: ``prompt_tuning.init``).
PROMPT_INITS = ("normal", "vocabulary")


def vocabulary_prompts(
    loaded: LoadedModel, count: int, generator: torch.Generator
) -> torch.Tensor:
    """``count`` rows ``[count, hidden]`` of the input embedding matrix, of tokens drawn
    uniformly (with replacement, from ``generator``) among the tokenizer's ids that are
    not special tokens; copies, detached from the model."""
    weight = loaded.model.get_input_embeddings().weight
    special = torch.tensor(sorted(set(loaded.tokenizer.all_special_ids)), dtype=torch.long)
    ids = torch.arange(weight.shape[0])
    ordinary = ids[~torch.isin(ids, special)]
    chosen = ordinary[torch.randint(len(ordinary), (count,), generator=generator)]
    return weight.detach()[chosen.to(weight.device)].clone().cpu()


class PromptedClassifier(torch.nn.Module):
    """A frozen backbone with ``l`` trainable soft prompts and a verbalizer.

    Parameters
    ----------
    loaded : the backbone and tokenizer; its weights are frozen here
        (``requires_grad=False``), so backward computes gradients for the prompts
        only.
    label_words : one word per label (:mod:`skillneurons.models.verbalizer`).
    prompt_length : number ``l`` of soft prompt vectors (paper: 127).
    init_std : std of their normal initialisation (paper: 0.03).
    seed : seed of the initialisation.
    init : :data:`PROMPT_INITS`: ``"normal"``, ``N(0, init_std^2)`` per entry (paper A,
        appendix B), or ``"vocabulary"``, each prompt a copy of the input embedding of a
        token drawn uniformly from the non-special vocabulary (Lester et al., 2021's
        sampled-vocabulary initialisation). On SmolLM2 a normal draw of std 0.03 starts
        the prompts at a fifth of a token embedding's norm, and some draws never leave
        the plateau where the answer is the class prior (docs/data-and-models.md).
    """

    def __init__(
        self,
        loaded: LoadedModel,
        label_words: Sequence[str],
        prompt_length: int,
        init_std: float = 0.03,
        seed: int = 0,
        init: str = "normal",
    ):
        super().__init__()
        self.backbone = loaded.model
        for parameter in self.backbone.parameters():
            parameter.requires_grad_(False)
        self.kind = loaded.kind
        self.pad_id = loaded.tokenizer.pad_token_id
        self.label_words = list(label_words)
        self.label_ids = label_token_ids(loaded.tokenizer, label_words)
        self.scorer = LabelScorer(self.backbone, self.kind, self.label_ids)
        embeddings = self.backbone.get_input_embeddings()
        generator = torch.Generator().manual_seed(seed)
        if init == "normal":
            hidden = embeddings.weight.shape[1]
            initial = torch.randn(prompt_length, hidden, generator=generator) * init_std
        elif init == "vocabulary":
            initial = vocabulary_prompts(loaded, prompt_length, generator)
        else:
            raise ValueError(f"prompt init {init!r} is unknown; use one of {PROMPT_INITS}")
        self.prompts = torch.nn.Parameter(initial.to(embeddings.weight.dtype))
        self.masked = self.kind != "causal_lm"
        if self.masked:
            mask_id = loaded.tokenizer.mask_token_id
            if mask_id is None:
                raise ValueError(f"tokenizer of {loaded.source!r} has no mask token")
            self.register_buffer("mask_id", torch.tensor([mask_id]), persistent=False)
        forward = inspect.signature(self.backbone.base_model.forward).parameters
        self.takes_position_ids = "position_ids" in forward
        max_positions = getattr(self.backbone.config, "max_position_embeddings", None)
        self.max_input_length = (
            None if max_positions is None else max_positions - self.added_length
        )

    @property
    def prompt_length(self) -> int:
        return self.prompts.shape[0]

    @property
    def layout(self) -> str:
        """The sequence layout (:data:`LAYOUTS`, the module docstring)."""
        return LAYOUTS["masked" if self.masked else "causal"]

    @property
    def added_length(self) -> int:
        """Positions the classifier adds to the input: the prompts and, in masked
        models, the ``[MASK]``."""
        return self.prompt_length + int(self.masked)

    @property
    def prompt_positions(self) -> torch.Tensor:
        """Sequence positions of ``p_1 .. p_l`` (see the module docstring): ``1 .. l``
        in masked models, ``-l .. -1`` (the last ``l``) in causal LMs."""
        if self.masked:
            return torch.arange(1, 1 + self.prompt_length)
        return torch.arange(-self.prompt_length, 0)

    def _left_padding(self, attention_mask: torch.Tensor) -> torch.Tensor:
        """Per row, how far its tokens move right when its padding goes to the left."""
        return attention_mask.shape[1] - attention_mask.sum(dim=1)

    def input_positions(self, attention_mask: torch.Tensor) -> torch.Tensor:
        """Where each input slot of a (right-padded) batch sits in the sequence:
        int64 ``[batch, width]`` (a padding slot gives the position of a padding token)."""
        width = attention_mask.shape[1]
        slots = torch.arange(width, device=attention_mask.device).expand_as(attention_mask)
        if self.masked:
            return slots + self.added_length
        return (slots + self._left_padding(attention_mask)[:, None]) % max(width, 1)

    def sequence(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        prompts: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        """The backbone's keyword arguments for a right-padded batch in this layout:
        ``inputs_embeds`` ``[batch, added + width, hidden]``, ``attention_mask`` and, when
        the backbone takes them, ``token_type_ids`` or ``position_ids``. ``prompts``
        ``[batch, l, hidden]`` gives each row its own soft prompts (trials trained
        together, :mod:`skillneurons.models.stacked_prompts`); by default every row
        gets this classifier's."""
        batch = input_ids.shape[0]
        embed = self.backbone.get_input_embeddings()
        if prompts is None:
            prompts = self.prompts.expand(batch, -1, -1)
        added = torch.ones(batch, self.added_length, dtype=attention_mask.dtype)
        added = added.to(attention_mask.device)
        if self.masked:
            mask = embed(self.mask_id).expand(batch, 1, -1)
            kwargs = {
                "inputs_embeds": torch.cat([mask, prompts, embed(input_ids)], dim=1),
                "attention_mask": torch.cat([added, attention_mask], dim=1),
            }
            if token_type_ids is not None:
                zeros = torch.zeros_like(added).to(token_type_ids.device)
                kwargs["token_type_ids"] = torch.cat([zeros, token_type_ids], dim=1)
            return kwargs
        width = input_ids.shape[1]
        slots = torch.arange(width, device=input_ids.device)
        order = (slots - self._left_padding(attention_mask)[:, None]) % max(width, 1)
        attention = torch.cat([attention_mask.gather(1, order), added], dim=1)
        kwargs = {
            "inputs_embeds": torch.cat([embed(input_ids.gather(1, order)), prompts], dim=1),
            "attention_mask": attention,
        }
        if self.takes_position_ids:  # real tokens count from 0, whatever the padding
            kwargs["position_ids"] = (attention.cumsum(dim=1) - 1).clamp(min=0)
        return kwargs

    def answer_hidden(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        prompts: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Last hidden state at the answer position, ``[batch, hidden]``: the ``[MASK]``
        (masked models) or the last position (causal LMs: the next token after ``p_l``);
        ``prompts`` as in :meth:`sequence`."""
        kwargs = self.sequence(input_ids, attention_mask, token_type_ids, prompts)
        hidden = self.backbone.base_model(**kwargs).last_hidden_state
        return hidden[:, 0] if self.masked else hidden[:, -1]

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Label logits ``[batch, labels]`` (``labels`` is accepted and ignored)."""
        return self.scorer(self.answer_hidden(input_ids, attention_mask, token_type_ids))

    def prompt_state(self) -> dict[str, torch.Tensor]:
        return {"prompts": self.prompts.detach().clone()}

    def load_prompt_state(self, state: dict[str, torch.Tensor]) -> None:
        with torch.no_grad():
            self.prompts.copy_(state["prompts"])


def write_prompt(
    path: str, classifier: PromptedClassifier, metadata: Mapping[str, object]
) -> None:
    """Save the soft prompts ``[l, hidden]`` with their metadata as safetensors."""
    meta = {
        **metadata,
        "label_words": classifier.label_words,
        "label_token_ids": classifier.label_ids,
        "scoring": SCORING[classifier.kind],
        "prompt_length": classifier.prompt_length,
        "layout": classifier.layout,
    }
    write_tensors(path, classifier.prompt_state(), meta)


def load_prompt(classifier: PromptedClassifier, path: str) -> None:
    """Load tuned prompts from :func:`write_prompt`'s file into ``classifier``."""
    state = read_tensors(path)
    if state["prompts"].shape != classifier.prompts.shape:
        raise ValueError(
            f"{path}: prompts of shape {tuple(state['prompts'].shape)} do not fit a classifier "
            f"with {tuple(classifier.prompts.shape)}"
        )
    classifier.load_prompt_state({"prompts": state["prompts"].to(classifier.prompts.dtype)})


def classifier_from_prompt_file(loaded: LoadedModel, path: str) -> PromptedClassifier:
    """The classifier of a prompt file on an already loaded backbone, on its device.

    Label words and prompt length come from the file's metadata; the prompts are the
    file's (the initialisation the constructor draws is overwritten). One model load
    can serve several prompt files (tasks, trials, pruned and unpruned models).
    """
    meta = read_tensor_metadata(path)
    classifier = PromptedClassifier(loaded, meta["label_words"], meta["prompt_length"])
    load_prompt(classifier, path)
    return classifier.to(loaded.model.device)
