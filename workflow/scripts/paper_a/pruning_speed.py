"""Rule pruning_speed: CPU inference time of every pruned model against the unpruned one on
the same test batch, after warm-up, in turns, and its FLOP, work and time bounds
(paper A, Table 4)."""

from skillneurons.data.splits import read_split
from skillneurons.infra.io import read_json, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.paper_a.pruning import load_pruned_model
from skillneurons.paper_a.speed import compare_speed

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards) as log:
    inputs, params = snakemake.input, snakemake.params
    base = load_on_device(params.model, snakemake.threads)  # CPU: the paper times one CPU
    tests = dict(zip(params.tasks, inputs.tests, strict=True))
    results = {task: [] for task in params.tasks}
    for tensors, config, prompt in zip(inputs.models, inputs.configs, inputs.prompts, strict=True):
        task = read_json(config)["task"]
        split = encode_frame(base, read_split(tests[task])[0], params.max_length)
        rows = range(min(params.batch_size, len(split)))
        batch = split.batch(rows, base.tokenizer.pad_token_id)
        pruned, meta = load_pruned_model(tensors, config, base=base)
        # the same (re-tuned) prompts in front of both models
        classifiers = [classifier_from_prompt_file(loaded, prompt) for loaded in (base, pruned)]
        result = compare_speed(*classifiers, batch, params.repeats, params.warmup)
        results[task].append({"trial": meta["trial"], "widths": meta["widths"], **result})
        log.info("%s trial %d: speedup %.2fx, bounds: FLOP %.2fx, work %.2fx, time %.2fx",
                 task, meta["trial"], result["speedup"], result["flop_bound"],
                 result["work_bound"], result["time_bound"])  # fmt: skip
    write_json(snakemake.output[0], {"model": snakemake.wildcards.model, "tasks": results})
