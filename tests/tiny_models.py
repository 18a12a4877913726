"""Tiny randomly initialised models with a word-level tokenizer, built in the tests."""

import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertModel,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
)
from transformers.activations import ACT2FN

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


VOCAB, HIDDEN, LAYERS, HEADS = 50, 16, 2, 2
BATCH, SEQ = 2, 5
COMMON = dict(vocab_size=VOCAB, max_position_embeddings=32)


def bloom_gelu(x):
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


def llama_config(cls):
    return cls(
        hidden_size=HIDDEN,
        intermediate_size=20,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=HEADS,
        **COMMON,
    )


#: A tiny random model of every supported family: name -> (model factory, family,
#: neurons per layer from the config, activation function). Vocabulary: ``VOCAB`` ids.
FAMILIES = {
    "bert-base": (
        lambda: transformers.BertModel(
            transformers.BertConfig(
                hidden_size=HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                intermediate_size=24,
                **COMMON,
            )
        ),
        "bert",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "bert-mlm": (
        lambda: transformers.BertForMaskedLM(
            transformers.BertConfig(
                hidden_size=HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                intermediate_size=24,
                **COMMON,
            )
        ),
        "bert",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "roberta": (
        lambda: transformers.RobertaForMaskedLM(
            transformers.RobertaConfig(
                hidden_size=HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                intermediate_size=20,
                pad_token_id=1,
                **COMMON,
            )
        ),
        "roberta",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "distilbert": (
        lambda: transformers.DistilBertForMaskedLM(
            transformers.DistilBertConfig(
                dim=HIDDEN, n_layers=LAYERS, n_heads=HEADS, hidden_dim=28, **COMMON
            )
        ),
        "distilbert",
        lambda c: c.hidden_dim,
        lambda c: ACT2FN[c.activation],
    ),
    "gpt2": (
        lambda: transformers.GPT2LMHeadModel(
            transformers.GPT2Config(
                vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_positions=32
            )
        ),
        "gpt2",
        lambda c: c.n_inner or 4 * c.n_embd,
        lambda c: ACT2FN[c.activation_function],
    ),
    "llama": (
        lambda: transformers.LlamaForCausalLM(llama_config(transformers.LlamaConfig)),
        "llama",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "mistral": (
        lambda: transformers.MistralForCausalLM(llama_config(transformers.MistralConfig)),
        "mistral",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "qwen2": (
        lambda: transformers.Qwen2ForCausalLM(llama_config(transformers.Qwen2Config)),
        "qwen2",
        lambda c: c.intermediate_size,
        lambda c: ACT2FN[c.hidden_act],
    ),
    "bloom": (
        lambda: transformers.BloomForCausalLM(
            transformers.BloomConfig(
                vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS
            )
        ),
        "bloom",
        lambda c: 4 * c.hidden_size,
        lambda c: bloom_gelu,
    ),
    "opt": (
        lambda: transformers.OPTForCausalLM(
            transformers.OPTConfig(
                hidden_size=HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                ffn_dim=24,
                word_embed_proj_dim=HIDDEN,
                **COMMON,
            )
        ),
        "opt",
        lambda c: c.ffn_dim,
        lambda c: ACT2FN[c.activation_function],
    ),
}


def write_tiny_gguf(path) -> None:
    """A GGUF file laid out as SmolLM2's (tests/test_smollm.py): a 1-layer Llama of width
    32, its matrices in 4-bit Q4_1, its embedding (tied to the output) in Q8_0, its norms
    in float32, a byte-level BPE vocabulary with three merges. Random weights, seeded."""
    import gguf
    import numpy as np
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    rng = np.random.default_rng(0)
    tokens = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *bytes_to_unicode().values()]
    tokens += ["Ġt", "he", "Ġthe"]
    tokens += [f"<pad{i}>" for i in range(-len(tokens) % 32)]  # rows of whole Q8_0 blocks
    width, ffn = 32, 64
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(1)
    writer.add_context_length(64)
    writer.add_embedding_length(width)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(2)
    writer.add_head_count_kv(1)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(width // 2)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(tokens)
    writer.add_token_types([3] * 3 + [1] * (len(tokens) - 3))
    writer.add_token_merges(["Ġ t", "h e", "Ġt he"])
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_pad_token_id(2)
    kinds = gguf.GGMLQuantizationType

    def add(name: str, shape: tuple[int, ...], kind) -> None:
        weights = (0.1 * rng.standard_normal(shape)).astype(np.float32)
        if kind == kinds.F32:
            writer.add_tensor(name, weights)
        else:
            writer.add_tensor(name, gguf.quants.quantize(weights, kind), raw_dtype=kind)

    add("token_embd.weight", (len(tokens), width), kinds.Q8_0)
    add("output_norm.weight", (width,), kinds.F32)
    add("blk.0.attn_norm.weight", (width,), kinds.F32)
    add("blk.0.ffn_norm.weight", (width,), kinds.F32)
    matrices = {
        "attn_q": (width, width),
        "attn_k": (width // 2, width),
        "attn_v": (width // 2, width),
        "attn_output": (width, width),
        "ffn_gate": (ffn, width),
        "ffn_up": (ffn, width),
        "ffn_down": (width, ffn),
    }
    for name, shape in matrices.items():
        add(f"blk.0.{name}.weight", shape, kinds.Q4_1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
