"""Rule comparison: paper B's relevance on paper A's prompt-tuned model (trial 0) beside
paper A's ranking of the same task: rank agreement and curves that deactivate neurons in
A's order, B's order and layer-matched random orders (AB-T1, AB-F1)."""

from skillneurons.data.splits import read_split
from skillneurons.data.subsets import stratified_subset
from skillneurons.infra.io import read_tensors, write_frame_parquet, write_json
from skillneurons.infra.runlog import job_log
from skillneurons.models.encoding import encode_frame
from skillneurons.models.loading import load_on_device
from skillneurons.models.prompted import classifier_from_prompt_file
from skillneurons.neurons.perturbation.files import perturb_trial
from skillneurons.neurons.perturbation.noise import noise_scale
from skillneurons.neurons.ranking import Ranking
from skillneurons.paper_b.comparison import comparison_orders, ranking_agreement
from skillneurons.paper_b.relevance import relevance_tables, write_task_neurons

with job_log(snakemake.log[0], snakemake.rule, snakemake.wildcards):
    inputs, params, output = snakemake.input, snakemake.params, snakemake.output
    task, identity = snakemake.wildcards.task, dict(snakemake.wildcards.items())
    attribution = {  # paper_b.relevance, attribution_samples and batch_size
        "definition": params.relevance,
        "attribution_samples": params.attribution_samples,
        "batch_size": params.batch_size,
    }
    loaded = load_on_device(params.model, snakemake.threads, snakemake.resources.get("gpu", 0))
    classifier = classifier_from_prompt_file(loaded, inputs.prompt)
    train = encode_frame(loaded, read_split(inputs.train)[0], params.max_length)
    test_frame = stratified_subset(read_split(inputs.test)[0], params.test_samples, params.seed)
    test = encode_frame(loaded, test_frame, params.max_length)
    baseline = read_tensors(inputs.baseline)
    tables = relevance_tables({task: classifier}, {task: train}, **attribution, seed=params.seed)
    table = tables[task]
    on = {"identified_on": "prompt-tuned model (trial 0)"}
    write_task_neurons(output.neurons, table, {**identity, **on, **attribution})
    ranking = Ranking.from_parquet(inputs.ranking)
    agreement = ranking_agreement(ranking, table, params.fraction)
    write_json(output.agreement, {**identity, **agreement})
    curves = perturb_trial(
        classifier, test,
        comparison_orders(ranking, table, params.layer_matched_orders, params.seed),
        rates=params.rates, settings=params.settings, seed=params.seed,
        batch_size=params.batch_size, baseline=baseline["prompt"].numpy(),
        scale=noise_scale(baseline), eval_task=task, trial=0,
    )  # fmt: skip
    write_frame_parquet(
        output.curves, curves, {**identity, "sample_idx": test_frame["idx"].tolist()}
    )
