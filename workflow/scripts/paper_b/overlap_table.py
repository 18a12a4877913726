"""Rule overlap_table: Table B-T8: the overlap rate (Eq. 13) of the training tasks' and
the test tasks' top-p neurons, per p and pair of groups (cls-cls, and with a generation
group cls-gen, gen-cls, gen-gen), beside random sets of the same sizes (paper B,
appendix A.6)."""

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.overlap_report import overlap_table
from skillneurons.paper_b.relevance import read_task_neuron_tables
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    groups = {
        name: (
            read_task_neuron_tables(train, inputs[f"{name}_train"]),
            read_task_neuron_tables(test, inputs[f"{name}_test"]),
        )
        for name, (train, test) in params.groups.items()
    }
    table = overlap_table(groups, params.proportions)
    write_frame(snakemake.output.csv, snakemake.output.md, table, params.title, ".1f")
