"""Generation: the twins, the task registry and loaders, the target-only LM loss, greedy
decoding on tiny causal models, and ROUGE-L through rouge-score."""

import numpy as np
import pandas as pd
import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from skillneurons.data.generation_splits import (
    PAPER_GENERATION_TASKS,
    SYNTHETIC_GENERATION_TASKS,
    cap_splits,
    generation_spec,
    generation_splits,
    load_generation_source,
)
from skillneurons.data.sources import DataSourceError
from skillneurons.data.synthetic.generation_twins import GENERATION_TWINS, generate_generation_task
from skillneurons.models.decoding import (
    IGNORED,
    CausalLMObjective,
    GenerationExample,
    GenerationSplit,
    encode_examples,
    greedy_continuations,
    lm_batch,
    sample_losses,
)
from skillneurons.models.loading import LoadedModel
from skillneurons.models.sites import ffn_sites
from skillneurons.models.training import TrainingSettings
from skillneurons.paper_b.deactivation import deactivation_results, train_multitask
from skillneurons.paper_b.deactivation_report import deactivation_table
from skillneurons.paper_b.generation_scoring import (
    GenerationBudget,
    encode_generation,
    generation_objective,
    generation_prompts,
)
from skillneurons.paper_b.instructions import INSTRUCTIONS
from skillneurons.paper_b.neuron_effects import effect_matrix, reference_scores
from skillneurons.paper_b.neuron_training import neuron_training_results, zero_shot_results
from skillneurons.paper_b.neuron_training_report import training_table
from skillneurons.paper_b.relevance import relevance
from skillneurons.paper_b.rouge import rouge_l_f1
from skillneurons.paper_b.scorers import generation_scorer
from tiny_models import FAMILIES, word_tokenizer

# ------------------------------------------------------------------------- ROUGE-L


def test_rouge_l_on_a_hand_checked_pair():
    # LCS "the cat on the mat" = 5 of 6 tokens on both sides: P = R = F = 5/6
    scores = rouge_l_f1(["the cat sat on the mat"], ["the cat was on the mat"])
    assert scores == pytest.approx([5 / 6])


def test_rouge_l_of_reordered_words_counts_the_common_subsequence():
    # prediction: police arrested two men; reference: two men were arrested by police.
    # LCS "two men" (2 tokens): P = 2/4, R = 2/6, F = 2PR / (P + R) = 0.4
    scores = rouge_l_f1(["Police arrested two men."], ["Two men were arrested by police."])
    assert scores == pytest.approx([0.4])
    assert rouge_l_f1([""], ["anything"]) == pytest.approx([0.0])


def test_rouge_l_stems_only_when_asked():
    # "cats ran" / "cat ran": without stemming only "ran" is common (F = 1/2); Porter
    # stemming maps "cats" to "cat", so both tokens match (F = 1)
    assert rouge_l_f1(["cats ran"], ["cat ran"]) == pytest.approx([0.5])
    assert rouge_l_f1(["cats ran"], ["cat ran"], stemmer=True) == pytest.approx([1.0])


def test_rouge_l_needs_one_reference_per_prediction():
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        rouge_l_f1(["a", "b"], ["a"])


# --------------------------------------------------------------------------- twins


@pytest.mark.parametrize("name", list(GENERATION_TWINS))
def test_twins_are_deterministic_unique_and_filled(name):
    frame = generate_generation_task(name, 600, seed=3)
    again = generate_generation_task(name, 600, seed=3)
    pd.testing.assert_frame_equal(frame, again)
    assert frame["source"].is_unique
    assert (frame["target"].str.split().str.len() >= 4).all()
    assert not frame.equals(generate_generation_task(name, 600, seed=4))


def test_twins_pair_a_training_and_an_out_of_domain_task_per_type():
    types = [twin.type for twin in GENERATION_TWINS.values()]
    assert sorted(types) == sorted(["summarization", "question_generation", "data_to_text"] * 2)
    assert {spec.twin for spec in SYNTHETIC_GENERATION_TASKS.values()} == set(
        PAPER_GENERATION_TASKS
    )


def test_summaries_keep_the_passage_entities():
    frame = generate_generation_task("syn_cnndm", 50, seed=0)
    town = frame["target"].str.split().str[0]
    assert all(t in source for t, source in zip(town, frame["source"], strict=True))


def test_data_to_text_targets_state_every_attribute():
    frame = generate_generation_task("syn_e2e", 50, seed=0)
    for record, text in zip(frame["source"], frame["target"], strict=True):
        food = record.split("food[")[1].split("]")[0]
        name = record.split("name[")[1].split("]")[0]
        assert food in text and text.startswith(name)


# ---------------------------------------------------------------- registry, loaders


LOCAL_COPIES = {
    "cnn_dailymail": ({"article": "A long story.", "highlights": "A story.", "id": "x"}, {}),
    "xsum": ({"document": "A report.", "summary": "In short.", "id": "1"}, {}),
    "sciq": (
        {"question": "What do bees collect?", "support": "Bees collect nectar.",
         "correct_answer": "nectar", "distractor1": "sand"},
        {"answer": "nectar"},
    ),
    "tweet_qa": (
        {"Question": "who won?", "Answer": ["the reds"], "Tweet": "the reds won!", "qid": "q"},
        {"answer": "the reds"},
    ),
    "e2e_nlg": ({"meaning_representation": "name[X], food[Thai]",
                 "human_reference": "X serves Thai food."}, {}),
    "common_gen": ({"concept_set_idx": 0, "concepts": ["dog", "ball"],
                    "target": "The dog chases a ball."}, {}),
}  # fmt: skip


@pytest.mark.parametrize("name", list(PAPER_GENERATION_TASKS))
def test_paper_tasks_load_from_local_copies(tmp_path, name):
    row, source_parts = LOCAL_COPIES[name]
    spec = PAPER_GENERATION_TASKS[name]
    splits = [spec.train_split, spec.test_split] + ([spec.dev_split] if spec.dev_split else [])
    for split in splits:
        pd.DataFrame([row] * 3).to_parquet(tmp_path / f"{split}.parquet")
    frame = load_generation_source(spec, local_copy=str(tmp_path))
    assert list(frame.columns) == ["source", "target", "role"]
    assert len(frame) == 3 * len(splits)
    assert (frame["target"] == row[spec.target_column]).all()
    for label, text in source_parts.items():
        assert f"{label}: {text}" in frame["source"].iloc[0]
    if name == "common_gen":  # list cells are joined, dev is carved out of train
        assert frame["source"].iloc[0] == "dog, ball"
        parts = generation_splits(frame, dev_fraction=0.34, seed=0)
        assert [len(parts[s]) for s in ("train", "dev", "test")] == [2, 1, 3]


def test_caps_keep_a_seeded_subset_in_split_order():
    splits = {
        "train": pd.DataFrame(
            {"source": [f"s{i}" for i in range(10)], "target": list("abcdefghij")}
        ),
        "dev": pd.DataFrame({"source": ["d0", "d1"], "target": ["x", "y"]}),
    }
    capped = cap_splits(splits, {"train": 3, "dev": 5}, seed=0)
    assert len(capped["train"]) == 3 and capped["dev"].equals(splits["dev"])  # 2 <= 5
    kept = [int(source[1:]) for source in capped["train"]["source"]]
    assert kept == sorted(kept) and capped["train"].index.tolist() == [0, 1, 2]
    assert cap_splits(splits, {"train": 3}, seed=0)["train"].equals(capped["train"])
    assert not cap_splits(splits, {"train": 3}, seed=1)["train"].equals(capped["train"])
    assert cap_splits(splits, {"train": None}, seed=0)["train"].equals(splits["train"])


def test_a_local_copy_without_the_target_column_names_it(tmp_path):
    for split in ("train", "validation", "test"):
        pd.DataFrame({"document": ["text"]}).to_parquet(tmp_path / f"{split}.parquet")
    with pytest.raises(DataSourceError, match="no column\\(s\\) summary; it has document"):
        load_generation_source(PAPER_GENERATION_TASKS["xsum"], local_copy=str(tmp_path))


def test_empty_targets_are_refused_with_their_rows(tmp_path):
    rows = pd.DataFrame({"document": ["a", "b", "c"], "summary": ["ok", "", " "]})
    for split in ("train", "validation", "test"):
        rows.to_parquet(tmp_path / f"{split}.parquet")
    with pytest.raises(DataSourceError, match="2 empty 'summary' cells \\(rows 2, 3\\)"):
        load_generation_source(PAPER_GENERATION_TASKS["xsum"], local_copy=str(tmp_path))


def test_offline_hub_download_names_the_alternatives():
    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    with pytest.raises(DataSourceError, match="syn_cnndm.*data.local_datasets.xsum"):
        load_generation_source(PAPER_GENERATION_TASKS["xsum"], load_dataset=offline)
    with pytest.raises(DataSourceError, match="known tasks: cnn_dailymail"):
        generation_spec("cnn")


def test_synthetic_sources_have_the_requested_roles():
    spec = SYNTHETIC_GENERATION_TASKS["syn_sciq"]
    frame = load_generation_source(spec, seed=1, synthetic_sizes={"train": 5, "dev": 2, "test": 3})
    assert frame["role"].tolist() == ["train"] * 5 + ["dev"] * 2 + ["test"] * 3


# ------------------------------------------------------------ loss and decoding


def causal(family: str) -> torch.nn.Module:
    """A tiny random causal LM with peaked predictions (scaled output embeddings), so
    that losses over different tokens differ clearly."""
    torch.manual_seed(0)
    model = FAMILIES[family][0]().eval()
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(30.0)
    return model


def test_lm_batch_labels_only_the_target():
    batch = lm_batch([GenerationExample([5, 6, 7], [8, 9]), GenerationExample([5], [4])], pad_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7, 8, 9], [5, 4, 0, 0, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]]
    assert batch["labels"].tolist() == [
        [IGNORED, IGNORED, IGNORED, 8, 9],
        [IGNORED, 4, IGNORED, IGNORED, IGNORED],
    ]


def target_log_likelihoods(model, examples) -> list[torch.Tensor]:
    """By hand: each target token's log-probability, one example at a time."""
    terms = []
    for example in examples:
        ids = torch.tensor([example.prompt + example.target])
        log_probs = model(input_ids=ids).logits[0].log_softmax(-1)
        terms.append(
            torch.stack(
                [log_probs[t - 1, ids[0, t]] for t in range(len(example.prompt), ids.shape[1])]
            )
        )
    return terms


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_objective_gives_the_cross_entropy_of_target_tokens(family):
    model = causal(family)
    examples = [GenerationExample([3, 4, 5], [6, 7]), GenerationExample([9, 10], [11, 12, 13])]
    objective = CausalLMObjective(model, pad_id=0)
    batch = GenerationSplit(examples).batch([0, 1], 0, torch.device("cpu"))
    logits = objective(**batch)
    loss = torch.nn.functional.cross_entropy(logits, batch["labels"])
    terms = torch.cat(target_log_likelihoods(model, examples))
    assert loss.item() == pytest.approx(-terms.mean().item(), rel=1e-5)
    # summed, each sample's negative log-likelihood of its target
    summed = torch.nn.functional.cross_entropy(logits, batch["labels"], reduction="sum")
    assert summed.item() == pytest.approx(-terms.sum().item(), rel=1e-5)
    # labelling the prompt's positions too would average over their tokens as well
    full = lm_batch(examples, pad_id=0)
    labels = torch.where(full["attention_mask"] == 1, full["input_ids"], IGNORED)
    wider = torch.nn.functional.cross_entropy(logits, labels[:, 1:].reshape(-1))
    assert abs(wider.item() - loss.item()) > 0.1


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_greedy_decoding_matches_a_manual_argmax_loop(family):
    model = causal(family)
    prompts = [[3, 4, 5, 6], [7], [8, 9]]  # different lengths: left padding in one batch
    eos = 2
    got = greedy_continuations(model, prompts, max_new_tokens=5, pad_id=0, eos_id=eos)
    for prompt, tokens in zip(prompts, got, strict=True):
        ids, expected = list(prompt), []
        for _ in range(5):
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
            token = int(logits.argmax())
            if token == eos:
                break
            expected.append(token)
            ids.append(token)
        assert tokens == expected


def test_decoding_stops_at_the_end_token():
    model = causal("gpt2")
    free = greedy_continuations(model, [[3, 4]], max_new_tokens=3, pad_id=0, eos_id=50)[0]
    assert len(free) == 3  # 50 is outside the vocabulary: never generated
    # the first generated token declared the end: nothing is returned
    stopped = greedy_continuations(model, [[3, 4]], max_new_tokens=3, pad_id=0, eos_id=free[0])
    assert stopped == [[]]


def test_examples_keep_the_prompt_end_and_the_target_start_then_eos():
    tokenizer = word_tokenizer()
    tokenizer.eos_token = "[UNK]"
    ids = tokenizer.convert_tokens_to_ids
    (example,) = encode_examples(
        tokenizer, ["very good"], ["not bad"], max_prompt_tokens=1, max_target_tokens=1
    )
    assert example == GenerationExample([ids("good")], [ids("not"), ids("[UNK]")])
    with pytest.raises(ValueError, match="1 prompts but 2 targets"):
        encode_examples(tokenizer, ["a"], ["b", "c"], max_prompt_tokens=4, max_target_tokens=4)
    tokenizer.eos_token = None
    with pytest.raises(ValueError, match="no end-of-text token"):
        encode_examples(tokenizer, ["a"], ["b"], max_prompt_tokens=4, max_target_tokens=4)


# --------------------------------------------------------- paper B: train and score


SOURCES = ["the council approved a bridge", "bees collect nectar"]
TARGETS = ["council approved bridge.", "what do bees collect?"]
INSTRUCTION = INSTRUCTIONS["summarization"]
BUDGET = GenerationBudget(max_prompt_tokens=32, max_target_tokens=16, max_new_tokens=8)


def word_level_gpt2() -> LoadedModel:
    """A tiny random GPT-2 whose word-level vocabulary covers SOURCES and TARGETS."""
    prompts = generation_prompts(SOURCES, INSTRUCTION)
    splitter = pre_tokenizers.Whitespace()
    words = sorted({w for text in prompts + TARGETS for w, _ in splitter.pre_tokenize_str(text)})
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[EOS]", *words])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = splitter
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="[PAD]", unk_token="[UNK]", eos_token="[EOS]"
    )
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(vocab), n_embd=32, n_layer=2, n_head=2, n_positions=64)
    return LoadedModel(GPT2LMHeadModel(config).eval(), tokenizer, "causal_lm", "tiny")


def two_examples() -> pd.DataFrame:
    return pd.DataFrame({"source": SOURCES, "target": TARGETS})


def test_a_non_causal_model_is_refused_for_generation():
    loaded = word_level_gpt2()
    encoder = LoadedModel(torch.nn.Linear(2, 2), loaded.tokenizer, "masked_lm", "bert-tiny")
    with pytest.raises(ValueError, match="need a causal LM; bert-tiny is a masked_lm model"):
        generation_objective(encoder)


def test_generation_relevance_is_each_samples_gradient_times_activation():
    loaded = word_level_gpt2()
    split = encode_generation(loaded, two_examples(), INSTRUCTION, BUDGET)
    objective = generation_objective(loaded)
    got = relevance(objective, split, batch_size=1, definition="sample_abs")
    # By hand: the input of each layer's output projection, one sample at a time (the
    # parameters take gradients again, so that the activations are in the graph).
    loaded.model.requires_grad_(True)
    expected = np.zeros_like(got)
    for row in range(len(split)):
        seen = {}

        def keep(layer, into=seen):
            def hook(module, args, output):
                args[0].retain_grad()
                into[layer] = args[0]

            return hook

        sites = ffn_sites(loaded.model)
        handles = [
            site.output_projection.register_forward_hook(keep(site.layer)) for site in sites
        ]
        batch = split.batch([row], objective.pad_id, torch.device("cpu"))
        try:
            logits = objective(**batch)
        finally:
            for handle in handles:
                handle.remove()
        # Paper B spec, ambiguity 2: the mean over the sample's target tokens.
        targets = int((batch["labels"] != IGNORED).sum())
        summed = torch.nn.functional.cross_entropy(logits, batch["labels"], reduction="sum")
        (summed / targets).backward()
        for layer, value in seen.items():
            expected[layer] += (value.grad * value).detach().sum(dim=1)[0].abs().double().numpy()
        loaded.model.zero_grad(set_to_none=True)
    assert [len(example.target) for example in split.examples] == [5, 6]  # EOS included
    np.testing.assert_allclose(got, expected / len(split), rtol=1e-5, atol=1e-9)
    assert got.max() > 0


def scorer_of(loaded: LoadedModel, budget: GenerationBudget = BUDGET, frame=None):
    """A generation task's scorer whose train, dev and test splits are ``frame`` (the two
    examples)."""
    frames = dict.fromkeys(("train", "dev", "test"), two_examples() if frame is None else frame)
    scoring = {"instruction": INSTRUCTION, "budget": vars(budget)}
    return generation_scorer(loaded, frames, scoring, batch_size=2)


def test_training_only_neurons_makes_a_tiny_causal_lm_write_its_targets():
    loaded = word_level_gpt2()
    before = {name: value.clone() for name, value in loaded.model.state_dict().items()}
    width = ffn_sites(loaded.model)[0].width
    every = {layer: np.arange(width) for layer in range(2)}
    training = TrainingSettings(
        learning_rate=0.05, batch_size=2, max_steps=60, eval_every=20, patience=3, seed=0
    )
    # B-F5d: the trained model is also scored on another task, with that task's budget
    # (one new token: "council" of 3 scored words, "what" of 4: F1 0.5 and 0.4)
    short = GenerationBudget(max_prompt_tokens=32, max_target_tokens=16, max_new_tokens=1)
    scorers = {"syn_cnndm": scorer_of(loaded), "syn_xsum": scorer_of(loaded, short)}
    zero = zero_shot_results(scorers)
    assert zero["metric"].tolist() == ["rouge_l"] * 2 and zero["score"].iloc[0] < 0.5
    results, metrics = neuron_training_results(
        scorers, "syn_cnndm", every, width=width, training=training, random_draws=1, seed=0,
        progress=False,
    )  # fmt: skip
    # each random training (both kinds) is scored on the other task too (B-F5d's controls)
    assert results["condition"].tolist() == [
        "task", "task", "random", "random", "random_layer_matched", "random_layer_matched"
    ]  # fmt: skip
    assert results["source"].tolist() == ["syn_cnndm"] * 6
    assert results["eval_task"].tolist() == ["syn_cnndm", "syn_xsum"] * 3
    assert len(results["sample_scores"].iloc[3]) == 2
    assert results["score"].iloc[0] == 1.0  # both targets written back exactly
    assert list(results["sample_scores"].iloc[0]) == [1.0, 1.0]
    assert list(results["sample_scores"].iloc[1]) == pytest.approx([0.5, 0.4])
    task_run = metrics["trainings"][0]
    assert metrics["metric"] == "rouge_l"
    assert task_run["neurons"] == 2 * width and task_run["dev_score"] == 1.0
    assert task_run["best_step"] in {point["step"] for point in task_run["dev_curve"]}
    # The deltas are removed afterwards: the base model is unchanged.
    for name, value in loaded.model.state_dict().items():
        assert torch.equal(value, before[name]), name


@pytest.mark.parametrize("by", ["activations", "weights"])
def test_a_multitask_causal_lm_and_its_deactivated_neurons(by):
    loaded = word_level_gpt2()
    tasks = ("syn_cnndm", "syn_xsum")  # both write the two targets back
    scorers = {task: scorer_of(loaded) for task in tasks}
    before = scorers["syn_cnndm"].mean("test")
    training = TrainingSettings(
        learning_rate=0.01, batch_size=2, max_steps=60, eval_every=20, patience=2, seed=0
    )
    metrics = train_multitask(loaded, scorers, training, progress=False)
    assert before < 0.5 and metrics["mean_dev_score"] == 1.0
    assert metrics["metric"] == "rouge_l" and metrics["tasks"] == list(tasks)
    assert not any(parameter.requires_grad for parameter in loaded.model.parameters())
    trained = {name: value.clone() for name, value in loaded.model.state_dict().items()}
    width = ffn_sites(loaded.model)[0].width
    # every layer listed, as task_neurons lists them (the global random draw spans them)
    none = np.array([], np.int64)
    neurons = {"syn_cnndm": {0: np.arange(width), 1: none}, "syn_xsum": {0: none, 1: np.arange(4)}}
    results = deactivation_results(scorers, neurons, width=width, random_draws=1, seed=0, by=by)
    conditions = ["original", "task", "task", "random", "random_layer_matched"]
    assert results["condition"].tolist() == conditions * 2
    assert results["source"].tolist() == [
        "", *tasks, "syn_cnndm", "syn_cnndm", "", *tasks, "syn_xsum", "syn_xsum"
    ]  # fmt: skip
    assert results.loc[results["condition"] == "original", "score"].tolist() == [1.0, 1.0]
    # By hand: layer 0's neurons all zeroed as activations (the output projection's
    # input), at every position the greedy decoding reads; zeroing the weights' columns
    # gives the same scores.
    site = ffn_sites(loaded.model)[0]
    handle = site.output_projection.register_forward_pre_hook(lambda _, args: (args[0] * 0,))
    try:
        expected = scorers["syn_xsum"].evaluate("test")[0]
    finally:
        handle.remove()
    got = results[(results["source"] == "syn_cnndm") & (results["eval_task"] == "syn_xsum")]
    assert list(got["sample_scores"].iloc[0]) == pytest.approx(list(expected))
    assert got["score"].iloc[0] < 1.0  # the layer's neurons matter
    for name, value in loaded.model.state_dict().items():  # the model restored
        assert torch.equal(value, trained[name]), name
    table = deactivation_table(results).set_index("task")
    assert table.loc["syn_xsum", "original"] == 100.0
    assert table.loc["syn_xsum", "deactivate_task"] == pytest.approx(
        100 * results["score"].iloc[7]
    )
    assert table.loc["syn_xsum", "deactivate_random_layer_matched"] == pytest.approx(
        100 * results["score"].iloc[9]
    )


def test_generation_effect_matrix_is_the_rouge_gain_over_zero_shot_in_points():
    results = pd.DataFrame(
        {"condition": ["zero_shot", "zero_shot", "task", "task", "task", "task"],
         "source": ["", "", "t", "t", "u", "u"], "draw": [0] * 6,
         "eval_task": ["t", "u", "t", "u", "t", "u"],
         "score": [0.1, 0.2, 0.5, 0.25, 0.05, 0.6]}
    )  # fmt: skip
    zero_shot = reference_scores(results, "zero_shot")
    assert zero_shot == {"t": 0.1, "u": 0.2}
    matrix = effect_matrix(results, zero_shot).set_index("neurons_of")
    np.testing.assert_allclose(matrix.loc[["t", "u"], ["t", "u"]], [[40, 5], [-5, 40]])


def test_generation_table_rows_are_rouge_times_100_with_the_gains():
    # the last row is task u's training scored on t (B-F5d), not a row of t's; random
    # sets over all layers (paper B's) score 0.2, 0.3, layer-matched ones 0.15, 0.05
    results = pd.DataFrame(
        {"condition": ["zero_shot", "task", "random", "random", "random_layer_matched",
                       "random_layer_matched", "task"],
         "source": ["", "t", "t", "t", "t", "t", "u"], "draw": [0, 0, 0, 1, 0, 1, 0],
         "eval_task": ["t"] * 7, "score": [0.1, 0.5, 0.2, 0.3, 0.15, 0.05, 0.9]}
    )  # fmt: skip
    table = training_table(results, results)
    assert table.columns.tolist() == [
        "task", "zero_shot", "train_random", "train_random_std", "train_random_layer_matched",
        "train_random_layer_matched_std", "train_task", "gain_random",
        "gain_random_layer_matched", "gain_task", "random_draws",
    ]  # fmt: skip
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["zero_shot"], row["train_task"], row["train_random"]) == pytest.approx(
        (10.0, 50.0, 25.0)
    )
    assert row["train_random_std"] == pytest.approx(100 * np.std([0.2, 0.3], ddof=1))
    assert row["train_random_layer_matched"] == pytest.approx(10.0)
    assert row["train_random_layer_matched_std"] == pytest.approx(
        100 * np.std([0.15, 0.05], ddof=1)
    )
    assert (row["gain_task"], row["gain_random"]) == pytest.approx((40.0, 15.0))
    assert row["gain_random_layer_matched"] == pytest.approx(0.0)
    assert row["random_draws"] == 2
    # a draw of one kind missing: the table names the rerun
    with pytest.raises(ValueError, match="different numbers of draws.*rerun rules deactivation"):
        training_table(results.drop(index=5), results)


def test_sample_loss_is_the_mean_over_its_target_tokens_not_the_sum():
    """Two samples in one batch, 3 next-token rows each over a 2-word vocabulary: sample
    A has 1 target token, sample B 3. Row cross-entropies by hand: logits (0, 0) give
    ln 2; logits (ln 3, 0) give ln(4/3) for word 0 and ln 4 for word 1."""
    ln3 = float(np.log(3.0))
    logits = torch.tensor([[0.0, 0.0], [5.0, 1.0], [2.0, 7.0], [ln3, 0.0], [ln3, 0.0], [0.0, 0.0]])
    labels = torch.tensor([1, IGNORED, IGNORED, 0, 1, 0])
    got = sample_losses(logits, labels, 2)
    mean = [np.log(2.0), (np.log(4 / 3) + np.log(4.0) + np.log(2.0)) / 3]  # = ln(32/3) / 3
    np.testing.assert_allclose(got.numpy(), mean, rtol=1e-6)
    summed = [np.log(2.0), np.log(32 / 3)]  # the old loss: B weighed 3 tokens' worth
    assert not np.allclose(got.numpy(), summed, rtol=1e-3)
    # Classification (one row per sample) keeps the plain cross-entropy.
    plain = torch.nn.functional.cross_entropy(logits[:2], torch.tensor([1, 0]), reduction="none")
    torch.testing.assert_close(sample_losses(logits[:2], torch.tensor([1, 0]), 2), plain)
