"""Paper B's figure registry (part 1) and the A-vs-B comparison: every figure and table,
its files and the rule writing it (see :mod:`skillneurons.reporting.registry`)."""

from __future__ import annotations

from skillneurons.reporting.registry import PaperOutput, Product, figure_product, table_product

DEACTIVATION = "Paper B: deactivation"
TRAINING = "Paper B: neuron-only fine-tuning"
COMPARISON = "Paper A vs B"
FINDINGS = "Paper B: findings"


PAPER_B: tuple[PaperOutput, ...] = (
    PaperOutput(
        "B-T1, B-T6",
        "multi-task model: original, random k% deactivated, the task's k% deactivated",
        DEACTIVATION,
        (table_product("deactivation_table", "B-T1"),),
    ),
    PaperOutput(
        "B-T2, B-T7",
        "zero-shot vs training random k% vs training the task's k% neurons",
        TRAINING,
        (table_product("training_table", "B-T2"),),
    ),
    PaperOutput(
        "B-F5",
        "task x task effect of deactivating (a) and of training (c) a task's neurons",
        TRAINING,
        (
            Product(
                "figure_task_specificity",
                {
                    "deactivation_csv": "tables/B-F5a.csv",
                    "deactivation_md": "tables/B-F5a.md",
                    "training_csv": "tables/B-F5c.csv",
                    "training_md": "tables/B-F5c.md",
                    "png": "figures/B-F5.png",
                    "pdf": "figures/B-F5.pdf",
                },
                {"png": "B-F5"},
            ),
        ),
    ),
    PaperOutput(
        "AB-T1",
        "paper A's skill neurons vs paper B's task neurons on one model: rank correlation, "
        "top-k overlap, curve areas",
        COMPARISON,
        (table_product("comparison_table", "AB-T1"),),
    ),
    PaperOutput(
        "AB-F1",
        "accuracy as neurons are deactivated in paper A's order, paper B's order and "
        "layer-matched random orders",
        COMPARISON,
        (figure_product("figure_comparison", "AB-F1"),),
    ),
    PaperOutput(
        "paper B claims",
        "findings: paper B's claims and the A-vs-B claims, with intervals and verdicts",
        FINDINGS,
        (table_product("findings_b", "B-findings"),),
    ),
)
