"""Tiny randomly initialised models with a word-level tokenizer, built in the tests."""

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertModel,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
)

from skillneurons.models.loading import LoadedModel


def word_tokenizer() -> PreTrainedTokenizerFast:
    words = ["[PAD]", "[UNK]", "[MASK]", "Negative", "Positive", "good", "bad", "very", "not"]
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]"
    )


def tiny(kind: str, tokenizer) -> LoadedModel:
    torch.manual_seed(0)
    vocab = len(tokenizer)
    if kind == "causal_lm":
        model = GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_embd=16, n_layer=2, n_head=2))
    else:
        config = BertConfig(
            vocab_size=vocab,
            hidden_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=32,
        )
        model = (BertForMaskedLM if kind == "masked_lm" else BertModel)(config)
    return LoadedModel(model=model.eval(), tokenizer=tokenizer, kind=kind, source="tiny")
