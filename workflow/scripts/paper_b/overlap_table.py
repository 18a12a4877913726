"""Rule overlap_table: Table B-T8: the overlap rate (Eq. 13) of the training tasks' and
the test tasks' top-p neurons, per p, beside random sets of the same sizes (paper B,
appendix A.6)."""

from skillneurons.infra.runlog import job_log
from skillneurons.paper_b.generalization import overlap_table
from skillneurons.paper_b.relevance import read_task_neurons
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params = snakemake.input, snakemake.params
    train = {
        t: read_task_neurons(p)[0] for t, p in zip(params.train_tasks, inputs.train, strict=True)
    }
    test = {
        t: read_task_neurons(p)[0] for t, p in zip(params.test_tasks, inputs.test, strict=True)
    }
    table = overlap_table(train, test, params.proportions)
    write_frame(snakemake.output.csv, snakemake.output.md, table, params.title, ".1f")
