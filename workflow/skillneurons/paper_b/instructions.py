"""The instruction that names a task's skill in paper B's inputs (one per task type).

Paper B trains one model on several tasks, so each input says which skill it asks for:
``[MASK] <instruction> <text>`` on an encoder, ``<instruction> <text>`` on a causal LM
(:mod:`skillneurons.paper_b.classifiers`); a generation task's input is the instruction,
the source and ``Answer:``, one per line (:mod:`skillneurons.paper_b.generation_scoring`).
Paper B gives its prompts only by example; these defaults are ours (config
``paper_b.instructions`` replaces them per type).
"""

from __future__ import annotations

import pandas as pd

#: Default instruction per task type.
INSTRUCTIONS = {
    "sentiment": "Sentiment of the text:",
    "inference": "Does the first sentence imply the second?",
    "topic": "Topic of the text:",
    "paraphrase": "Do the two texts say the same thing?",
    "summarization": "Summarize the text in one sentence.",
    "question_generation": "Write the question that the text answers.",
    "data_to_text": "Write one sentence that states all of the following.",
}


def instructed(frame: pd.DataFrame, instruction: str) -> pd.DataFrame:
    """A split file's frame with ``instruction`` in front of every ``text_a``."""
    return frame.assign(text_a=[f"{instruction} {text}" for text in frame["text_a"]])
