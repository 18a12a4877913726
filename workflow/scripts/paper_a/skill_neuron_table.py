"""Rule skill_neuron_table: Table A-T1, prompt tuning vs the top skill neuron(s), test
accuracy mean ± std over trials (paper A, Table 1)."""

from skillneurons.infra.io import read_json
from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import read_trial_results, skill_neuron_table
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    table = skill_neuron_table(
        [read_json(path) for path in snakemake.input.prompt_metrics],
        read_trial_results(snakemake.input.neuron_results),
    )
    title = (
        f"A-T1: prompt tuning vs top skill neuron, test accuracy (%), {snakemake.wildcards.model}"
    )
    write_frame(snakemake.output.csv, snakemake.output.md, table, title)
