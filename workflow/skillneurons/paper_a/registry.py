"""Paper A's figure registry: every figure and table, its files and the rule writing it.

See :mod:`skillneurons.reporting.registry` for what the registry drives (``rule all``
and ``rule paper_a``, the README's figure table, report captions and categories) and
how it is kept equal to the outputs its rules declare.
Features that outputs may require (set by :meth:`skillneurons.plan.Plan.paper_a_targets`):

``histogram_task``   a binary task is configured (A-F1)
``scatter_task``     a task with binary subtasks is configured (A-F2)
``random_label_words``  ``random_label_words.tasks`` is not empty (§4.4)
``tuning_methods``   a tuning method and a task to train it on are configured (§5)
``adapter``, ``bitfit``  that tuning method is configured
``ablation``         ``ablation.tasks`` is not empty (table A-ablation)
"""

from __future__ import annotations

from skillneurons.reporting.registry import PaperOutput, Product, figure_product, table_product

PROMPT_TUNING = "Paper A - prompt tuning"
SKILL_NEURONS = "Paper A - skill neurons"
PERTURBATION = "Paper A - perturbation"
TASK_SPECIFICITY = "Paper A - task specificity"
WORD_SELECTIVITY = "Paper A - word selectivity"
TUNING_METHODS = "Paper A - adapters and BitFit"
PRUNING = "Paper A - pruning"
TRANSFERABILITY = "Paper A - transferability"
FINDINGS = "Paper A - findings"


def _figure_and_tables(rule: str, stem: str, caption: str, summary: bool) -> Product:
    """A heatmap with its table (and a per-evaluation-task summary table)."""
    files = {"csv": f"tables/{stem}.csv", "md": f"tables/{stem}.md"}
    if summary:
        files |= {"summary_csv": f"tables/{stem}_summary.csv"}
        files |= {"summary_md": f"tables/{stem}_summary.md"}
    files |= {"png": f"figures/{stem}.png", "pdf": f"figures/{stem}.pdf"}
    return Product(rule, files, {"png": caption})


#: Paper A's claims by key (config ``findings.primary`` names the primary ones): the
#: rows of its findings table (:mod:`skillneurons.paper_a.findings`).
CLAIMS = {
    "comparable": "§4.1, A-T1: the top skill neurons are about as accurate as prompt tuning",
    "prompts_vs_avg": "§4.1, A-F3: prompts find more predictive neurons than Avg.",
    "prompts_vs_max": "§4.1, A-F3: prompts find more predictive neurons than Max.",
    "central": "§4.2, A-F4: perturbing the top skill neurons hurts more than random "
    "neurons (the paper's design)",
    "central_configured": "§4.2: ... than random neurons, the configured noise (ours)",
    "central_configured_matched": "§4.2: ... than layer-matched random neurons, the "
    "configured noise (ours)",
    "same_type_correlation": "§4.3, A-F5: same-type tasks' orders correlate more",
    "same_type_importance": "§4.3, A-F6: same-type source tasks are more important",
    "selectivity": "App. H, A-F15: the predictivity order beats the selectivity index",
    "label_words_paper": "§4.4: random label words' orders agree as much as 0.87",
    "label_words_control": "§4.4: random label words move the orders no more than the seed",
    "pretraining": "§5, A-T3: the pre-trained model beats a random one",
    "adapter": "§5, A-F12: adapter models depend on the skill neurons",
    "bitfit": "§5, A-F13: BitFit models depend on the skill neurons",
}

PAPER_A: tuple[PaperOutput, ...] = (
    PaperOutput(
        "A-T1",
        "prompt tuning vs top skill neuron",
        SKILL_NEURONS,
        (
            table_product("skill_neuron_table", "A-T1"),
            table_product("prompt_tuning_table", "A-T1_prompt_tuning"),
        ),
    ),
    PaperOutput(
        "A-F1",
        "one top neuron's activations by label",
        SKILL_NEURONS,
        (figure_product("figure_activation_histogram", "A-F1"),),
        requires=("histogram_task",),
    ),
    PaperOutput(
        "A-F2",
        "top neurons of two subtasks, scatter",
        SKILL_NEURONS,
        (figure_product("figure_subtask_scatter", "A-F2"),),
        requires=("scatter_task",),
    ),
    PaperOutput(
        "A-F3, A-F9",
        "predictivity histograms with Avg./Max. baselines",
        SKILL_NEURONS,
        (figure_product("figure_predictivity_baselines", "A-F3_F9"),),
    ),
    PaperOutput(
        "A-F10",
        "other definitions of predictivity",
        SKILL_NEURONS,
        (figure_product("figure_predictivity_definitions", "A-F10"),),
    ),
    PaperOutput(
        "A-T3",
        "top neuron without prompt tuning (controls)",
        SKILL_NEURONS,
        (table_product("control_table", "A-T3"),),
    ),
    PaperOutput(
        "A-F4",
        "accuracy vs perturbation rate, example task",
        PERTURBATION,
        (figure_product("figure_perturbation_example", "A-F4"),),
    ),
    PaperOutput(
        "A-F11",
        "accuracy vs perturbation rate, every task and source order",
        PERTURBATION,
        (figure_product("figure_perturbation_all_tasks", "A-F11"),),
    ),
    PaperOutput(
        "A-F6",
        "neuronal importance heatmap",
        PERTURBATION,
        (_figure_and_tables("neuronal_importance", "A-F6", "A-F6", summary=True),),
    ),
    PaperOutput(
        "A-F15",
        "predictivity order vs selectivity index",
        PERTURBATION,
        (figure_product("figure_perturbation_selectivity", "A-F15"),),
    ),
    PaperOutput(
        "A-F5, A-F14",
        "task correlation of predictivity orders (mean, per layer)",
        TASK_SPECIFICITY,
        (
            Product(
                "task_correlation",
                {
                    "mean_csv": "tables/A-F5.csv",
                    "mean_md": "tables/A-F5.md",
                    "layers_csv": "tables/A-F14.csv",
                    "layers_md": "tables/A-F14.md",
                    "mean_png": "figures/A-F5.png",
                    "mean_pdf": "figures/A-F5.pdf",
                    "layers_png": "figures/A-F14.png",
                    "layers_pdf": "figures/A-F14.pdf",
                },
                {"mean_png": "A-F5", "layers_png": "A-F14"},
            ),
        ),
    ),
    PaperOutput(
        "A-T2, A-T6",
        "words of each task's top neuron",
        WORD_SELECTIVITY,
        (
            Product(
                "word_selectivity",
                {
                    "cosine_csv": "tables/A-T2.csv",
                    "cosine_md": "tables/A-T2.md",
                    "activation_csv": "tables/A-T6.csv",
                    "activation_md": "tables/A-T6.md",
                },
                {"cosine_csv": "A-T2", "activation_csv": "A-T6"},
            ),
        ),
    ),
    PaperOutput(
        "§4.4",
        "orders found with random label words",
        WORD_SELECTIVITY,
        (table_product("random_label_words_table", "A-S4.4"),),
        requires=("random_label_words",),
    ),
    PaperOutput(
        "A-F7",
        "BitFit: accuracy vs perturbation rate, example task",
        TUNING_METHODS,
        (figure_product("figure_bitfit_example", "A-F7"),),
        requires=("tuning_methods", "bitfit"),
    ),
    PaperOutput(
        "A-F12",
        "adapters: accuracy vs perturbation rate",
        TUNING_METHODS,
        (figure_product("figure_adapter_curves", "A-F12"),),
        requires=("tuning_methods", "adapter"),
    ),
    PaperOutput(
        "A-F13",
        "BitFit: accuracy vs perturbation rate",
        TUNING_METHODS,
        (figure_product("figure_bitfit_curves", "A-F13"),),
        requires=("tuning_methods", "bitfit"),
    ),
    PaperOutput(
        "A-F8",
        "neuronal importance in adapter and BitFit models (per method, averaged); their "
        "test accuracy",
        TUNING_METHODS,
        (
            _figure_and_tables(
                "tuning_method_importance", "A-F8_{method}", "A-F8_method", summary=True
            ),
            _figure_and_tables("tuning_methods_importance", "A-F8", "A-F8", summary=False),
            table_product("tuning_methods_table", "tuning_methods"),
        ),
        requires=("tuning_methods",),
    ),
    PaperOutput(
        "A-T4",
        "pruning to skill neurons: accuracy, speedup",
        PRUNING,
        (table_product("pruning_table", "A-T4"),),
    ),
    PaperOutput(
        "§6.2",
        "transferability indicator",
        TRANSFERABILITY,
        (
            Product(
                "transfer_table",
                {
                    "csv": "tables/A-S6.2.csv",
                    "md": "tables/A-S6.2.md",
                    "matrix_csv": "tables/A-S6.2_transfer.csv",
                    "matrix_md": "tables/A-S6.2_transfer.md",
                },
                {"csv": "A-S6.2", "matrix_csv": "A-S6.2_transfer"},
            ),
            figure_product("figure_transfer", "A-S6.2", "A-S6.2_figure"),
        ),
    ),
    PaperOutput(
        "A-ablation",
        "the central claim under other perturbation designs, each with its CI",
        FINDINGS,
        (table_product("ablation_table", "A-ablation"),),
        requires=("ablation",),
    ),
    PaperOutput(
        "§4-§5 claims",
        "findings: each claim of sections 4-5 and whether it holds here",
        FINDINGS,
        (table_product("findings", "findings"),),
    ),
)
