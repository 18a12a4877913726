"""Which vocabulary tokens count as words (paper A, §4.4: word lists, random label words).

- :func:`candidate_ids`: every token but special and bracketed placeholder tokens
  (``[unused12]``, ``<s>``, ...): the tokens word lists may show (Tables A-T2, A-T6);
- :func:`whole_word_ids`: the candidates whose text is alphabetic and that the
  tokenizer gives back as that single token when the text stands as a word of its own
  (so WordPiece ``##`` continuations and BPE word-internal pieces are out): the pool
  random label words are drawn from.
"""

from __future__ import annotations

import re

import numpy as np

#: Bracketed placeholder tokens: [unused12], [PAD], <s>, <extra_id_0>, <|endoftext|>.
PLACEHOLDER = re.compile(r"^(\[[^\]]*\]|<[^>]*>)$")


def candidate_ids(tokenizer, vocab_size: int | None = None) -> np.ndarray:
    """Vocabulary ids eligible for the word lists: all but special and placeholder tokens.

    ``vocab_size`` bounds the ids (an embedding matrix may have fewer or padded rows);
    default ``len(tokenizer)``. Returns sorted int64 ids.
    """
    size = len(tokenizer) if vocab_size is None else min(len(tokenizer), vocab_size)
    tokens = tokenizer.convert_ids_to_tokens(list(range(size)))
    special = set(tokenizer.all_special_ids)
    keep = [
        i
        for i, token in enumerate(tokens)
        if i not in special and token is not None and not PLACEHOLDER.match(token)
    ]
    return np.asarray(keep, dtype=np.int64)


def whole_word_ids(tokenizer) -> np.ndarray:
    """Sorted int64 ids of the whole-word tokens of ``tokenizer`` (the module docstring)."""
    ids = candidate_ids(tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(ids.tolist())
    texts = [tokenizer.convert_tokens_to_string([token]).strip() for token in tokens]
    alpha = [i for i, text in enumerate(texts) if text.isalpha()]
    encoded = tokenizer(
        [" " + texts[i] for i in alpha], add_special_tokens=False, return_attention_mask=False
    )["input_ids"]
    keep = [ids[i] for i, pieces in zip(alpha, encoded, strict=True) if pieces == [ids[i]]]
    return np.asarray(keep, dtype=np.int64)
