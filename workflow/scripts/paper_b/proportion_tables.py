"""Rule proportion_tables: Figures and tables B-F2 (the training tasks trained together)
and B-F6 (one model per task): in-domain and out-of-domain accuracy against the share of
task neurons trained (paper B, §5.1, appendix A.5)."""

import pandas as pd

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.tables import proportion_table
from skillneurons.reporting.figures import proportion_figure, save_figure
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, output, params = snakemake.input, snakemake.output, snakemake.params
    zero_shot = pd.read_parquet(inputs.zero_shot)
    group = proportion_table(pd.read_parquet(inputs.group), zero_shot)
    single = proportion_table(
        pd.concat(map(pd.read_parquet, inputs.single), ignore_index=True), zero_shot
    )
    write_frame(output.group_csv, output.group_md, group, params.group_title, ".1f")
    write_frame(output.single_csv, output.single_md, single, params.single_title, ".1f")
    panels = {"training tasks together": group}
    save_figure(proportion_figure(panels, params.group_title), output.group_png, output.group_pdf)
    panels = {f"trained on {task}": rows for task, rows in single.groupby("trained", sort=False)}
    figure = proportion_figure(panels, params.single_title)
    save_figure(figure, output.single_png, output.single_pdf)
