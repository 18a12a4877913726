"""Rule prepare_model: convert a GGUF model once into a safetensors model directory."""

from skillneurons.infra.runlog import job_log
from skillneurons.models.gguf import convert_gguf

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    files = convert_gguf(snakemake.params.source, snakemake.output[0])
    log.info("wrote %s: %s", snakemake.output[0], ", ".join(files))
