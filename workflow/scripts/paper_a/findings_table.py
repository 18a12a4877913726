"""Rule findings: paper A's qualitative claims of sections 4-5, checked on this run."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.findings import findings_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    label_words = inputs.get("label_words")
    table = findings_table(
        importance_summary=pd.read_csv(inputs.importance),
        correlation=pd.read_csv(inputs.correlation, index_col="task"),
        controls=pd.read_csv(inputs.controls),
        label_word_agreement=(
            pd.read_csv(label_words) if label_words else pd.DataFrame({"spearman_mean": []})
        ),
        method_summaries={
            method: pd.read_csv(path)
            for method, path in zip(params.methods, inputs.methods, strict=True)
        },
        task_types=params.task_types,
    )
    write_frame(
        snakemake.output.csv,
        snakemake.output.md,
        table,
        "Findings: paper A's claims of sections 4-5 on this run",
    )
