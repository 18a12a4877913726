"""Rule control_table: Table A-T3, top-neuron test accuracy with random prompts, a
hand-written prompt, a random model and tuned prompts, beside random guess."""

from skillneurons.infra.runlog import job_log
from skillneurons.paper_a.skill_neurons import control_table, read_trial_results
from skillneurons.reporting.tables import write_frame

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    params, inputs = snakemake.params, snakemake.input
    results = {setting: read_trial_results(inputs[setting]) for setting in params.settings}
    table = control_table(results, params.num_labels)
    title = f"A-T3: top-neuron test accuracy (%) by setting, {snakemake.wildcards.model}"
    write_frame(snakemake.output.csv, snakemake.output.md, table, title)
