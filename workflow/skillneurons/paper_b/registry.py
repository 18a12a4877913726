"""Paper B's figure registry and the A-vs-B comparison: every figure and table (B-*,
AB-*), its files and the rule writing it.

The registries' types: :mod:`skillneurons.reporting.registry`.
"""

from __future__ import annotations

from skillneurons.reporting.registry import PaperOutput, Product, figure_product, table_product

DEACTIVATION_CATEGORY = "Paper B - deactivation"
TRAINING = "Paper B - neuron-only fine-tuning"
COMPARISON = "Paper A vs B"
GENERALIZATION = "Paper B - generalization"
CONTINUAL = "Paper B - continual learning"
FINDINGS = "Paper B - findings"


def _table_and_figure(stem: str, prefix: str) -> dict[str, str]:
    return {
        f"{prefix}_csv": f"tables/{stem}.csv",
        f"{prefix}_md": f"tables/{stem}.md",
        f"{prefix}_png": f"figures/{stem}.png",
        f"{prefix}_pdf": f"figures/{stem}.pdf",
    }


#: Paper B's and the A-vs-B claims by key (config ``findings.primary`` names the primary
#: ones): the rows of paper B's findings table (:mod:`skillneurons.paper_b.findings`, from
#: each experiment's report: :mod:`.deactivation_report` ... :mod:`.continual_report`); a
#: pair of groups or the generation group adds a suffix to the claims it repeats for
#: (``_gen``, ``_gen_cls``).
CLAIMS = {
    "deactivation_vs_random": "§4.1, B-T1: deactivating task neurons hurts more than random",
    "deactivation_vs_layer_matched": "§4.1, B-T1: ... than layer-matched random (ours)",
    "training": "§4.2, B-T2: training task neurons gains more than training random ones",
    "training_vs_layer_matched": "§4.2, B-T2: ... than layer-matched random (ours)",
    "deactivation_specific": "A.4, B-F5a: deactivation hurts the task itself most",
    "training_specific": "A.4, B-F5c: training helps the task itself most (by construction)",
    "training_control": "A.4, B-F5c: ... more than random neurons trained on the same data",
    "training_control_layer_matched": "A.4, B-F5c: ... than layer-matched random (ours)",
    "deactivation_generation": "§4.1, B-T1 (generation)",
    "deactivation_generation_layer_matched": "§4.1, B-T1 (generation; ours)",
    "deactivation_specific_generation": "A.4, B-F5b",
    "training_generation": "§4.2, B-T2 (generation)",
    "training_generation_layer_matched": "§4.2, B-T2 (generation; ours)",
    "generation_specific": "A.4, B-F5d (by construction)",
    "generation_control": "A.4, B-F5d against random neurons",
    "generation_control_layer_matched": "A.4, B-F5d against layer-matched random (ours)",
    "rank_correlation": "AB-T1: paper A's and paper B's rankings agree",
    "overlap": "AB-T1: their top neurons overlap more than chance",
    "a_order": "AB-F1: A's top neurons matter on the prompt-tuned model",
    "b_order": "AB-F1: B's top neurons matter on the prompt-tuned model",
    "a_over_b": "AB-F1: A's order hurts its own model more than B's",
    "specialization_peak": "§5.1, B-F2: trained together, specialization falls at 100%",
    "specialization_single": "A.5, B-F6: trained alone, specialization rises with the share",
    "generalization_rises": "§5.1, B-F2: generalization rises with the share",
    "cls_gen_flat": "§5.1, B-F2: cls -> gen generalizes less than gen -> gen",
    "overlap_above_random": "A.6, B-T8: the groups' neurons overlap more than random sets",
    "overlap_rises": "A.6, B-T8: the overlap rises with the share",
    "controlled_rises": "A.7, B-T9: more test-task neurons generalize better",
    "similarity_correlates": "§5.2, B-T4: similarity correlates with generalization",
    "similarity_profile": "§5.2, B-F3: similarity rises after some depth",
    "ncft_vs_seqft": "§6, B-T5: NCFT forgets less than SeqFT",
    "wncft_vs_seqft": "§6, B-T5: W-NCFT forgets less than SeqFT",
    "ncft_vs_seqlora": "§6, B-T5: NCFT forgets less than SeqLoRA",
    "wncft_vs_ncft": "§6, B-T5: W-NCFT beats NCFT",
    "wncft_vs_uniform": "§6, B-T5: W-NCFT beats equal weights (ours)",
    "ncft_below_per_task": "§6, B-T5: NCFT stays below per-task FT",
    "wncft_below_per_task": "§6, B-T5: W-NCFT stays below per-task FT",
    "ncft_vs_seqft_every_order": "§6, B-T5: NCFT beats SeqFT in every order",
    "wncft_vs_ncft_every_order": "§6, B-T5: W-NCFT beats NCFT in every order",
    "ncft_retention": "§6, B-F4: NCFT retains more than SeqFT at every stage",
    "wncft_retention": "§6, B-F4: W-NCFT retains more than SeqFT at every stage",
}

PAPER_B: tuple[PaperOutput, ...] = (
    PaperOutput(
        "B-T1, B-T6",
        "multi-task model: original, random k% deactivated (over all layers, and "
        "layer-matched, ours), the task's k% deactivated",
        DEACTIVATION_CATEGORY,
        (table_product("deactivation_table", "B-T1"),),
    ),
    PaperOutput(
        "B-T1 (generation)",
        "generation tasks on a causal LM fine-tuned on their mixture: original, random k% "
        "deactivated (over all layers, and layer-matched, ours), the task's k% deactivated, "
        "ROUGE-L",
        DEACTIVATION_CATEGORY,
        (table_product("generation_deactivation_table", "B-T1_generation"),),
        requires=("generation",),
    ),
    PaperOutput(
        "B-T2, B-T7",
        "zero-shot vs training random k% (over all layers, and layer-matched, ours) vs "
        "training the task's k% neurons",
        TRAINING,
        (table_product("training_table", "B-T2"),),
    ),
    PaperOutput(
        "B-T2 (generation)",
        "generation tasks on a causal LM: zero-shot vs training random k% (over all "
        "layers, and layer-matched, ours) vs training the task's k% neurons, ROUGE-L",
        TRAINING,
        (table_product("generation_training_table", "B-T2_generation"),),
        requires=("generation",),
    ),
    PaperOutput(
        "B-F5",
        "task x task effect of deactivating (a) and of training (c) a task's neurons, "
        "and of training random neurons on a task (c's controls: drawn over all layers, "
        "and layer-matched, ours)",
        TRAINING,
        (
            Product(
                "figure_task_specificity",
                {
                    "deactivation_csv": "tables/B-F5a.csv",
                    "deactivation_md": "tables/B-F5a.md",
                    "training_csv": "tables/B-F5c.csv",
                    "training_md": "tables/B-F5c.md",
                    "random_csv": "tables/B-F5c_random.csv",
                    "random_md": "tables/B-F5c_random.md",
                    "layer_matched_csv": "tables/B-F5c_random_layer_matched.csv",
                    "layer_matched_md": "tables/B-F5c_random_layer_matched.md",
                    "png": "figures/B-F5.png",
                    "pdf": "figures/B-F5.pdf",
                },
                {"png": "B-F5"},
            ),
        ),
    ),
    PaperOutput(
        "B-F5 (generation)",
        "generation tasks on a causal LM: task x task ROUGE-L effect of deactivating (b) "
        "and of training (d) a task's neurons, and of training random neurons on a task "
        "(d's controls: drawn over all layers, and layer-matched, ours)",
        TRAINING,
        (
            Product(
                "figure_generation_specificity",
                {
                    "deactivation_csv": "tables/B-F5b.csv",
                    "deactivation_md": "tables/B-F5b.md",
                    "training_csv": "tables/B-F5d.csv",
                    "training_md": "tables/B-F5d.md",
                    "random_csv": "tables/B-F5d_random.csv",
                    "random_md": "tables/B-F5d_random.md",
                    "layer_matched_csv": "tables/B-F5d_random_layer_matched.csv",
                    "layer_matched_md": "tables/B-F5d_random_layer_matched.md",
                    "png": "figures/B-F5_generation.png",
                    "pdf": "figures/B-F5_generation.pdf",
                },
                {"png": "B-F5_generation"},
            ),
        ),
        requires=("generation",),
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
        "B-F2, B-F6",
        "in-domain (specialization) and out-of-domain (generalization) score vs the "
        "share of task neurons trained: a group's training tasks together (B-F2), one "
        "model per task (B-F6); the classification group, and the generation group on a "
        "causal LM, each scored on both groups' test tasks",
        GENERALIZATION,
        (
            Product(
                "proportion_tables",
                _table_and_figure("B-F2", "group") | _table_and_figure("B-F6", "single"),
                {"group_png": "B-F2", "single_png": "B-F6"},
            ),
        ),
        requires=("generalization",),
    ),
    PaperOutput(
        "B-T8",
        "overlap rate of the training and test tasks' neurons vs random sets, per share "
        "and pair of groups (cls-cls; cls-gen, gen-cls, gen-gen with generation tasks)",
        GENERALIZATION,
        (table_product("overlap_table", "B-T8"),),
        requires=("generalization",),
    ),
    PaperOutput(
        "B-T9",
        "out-of-domain score at fixed trained shares with a controlled share of "
        "test-task neurons: B-T9 cls -> cls; B-T10 gen -> gen, B-T11 gen -> cls on a "
        "causal LM with the generation group",
        GENERALIZATION,
        (table_product("controlled_table", "B-T9"),),
        requires=("generalization",),
    ),
    PaperOutput(
        "B-F3, B-T4",
        "similarity of the training and test tasks' neuron parameters per layer; its "
        "correlation with out-of-domain score (one model per training task of each group)",
        GENERALIZATION,
        (
            Product(
                "similarity_outputs",
                {
                    "layers_csv": "tables/B-F3.csv",
                    "layers_md": "tables/B-F3.md",
                    "png": "figures/B-F3.png",
                    "pdf": "figures/B-F3.pdf",
                    "csv": "tables/B-T4.csv",
                    "md": "tables/B-T4.md",
                    "points_csv": "tables/B-T4_points.csv",
                    "points_md": "tables/B-T4_points.md",
                },
                {"png": "B-F3", "csv": "B-T4"},
            ),
        ),
        requires=("generalization",),
    ),
    PaperOutput(
        "B-T5, B-F4",
        "continual learning: CL per order and method (SeqFT, SeqLoRA, NCFT, W-NCFT, "
        "W-NCFT with uniform weights, per-task FT; EPI, O-LoRA quoted), the a_ij "
        "matrices, FG per stage",
        CONTINUAL,
        (
            Product(
                "continual_tables",
                {
                    "csv": "tables/B-T5.csv",
                    "md": "tables/B-T5.md",
                    "matrix_csv": "tables/B-T5_matrix.csv",
                    "matrix_md": "tables/B-T5_matrix.md",
                    "fg_csv": "tables/B-F4.csv",
                    "fg_md": "tables/B-F4.md",
                    "png": "figures/B-F4.png",
                    "pdf": "figures/B-F4.pdf",
                },
                {"csv": "B-T5", "png": "B-F4"},
            ),
        ),
        requires=("continual",),
    ),
    PaperOutput(
        "paper B claims",
        "findings: paper B's claims and the A-vs-B claims, with intervals and verdicts",
        FINDINGS,
        (table_product("findings_b", "B-findings"),),
    ),
)
