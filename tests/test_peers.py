"""This project's neuron seam against three peers that read and edit the same neurons:
TransformerLens, nnsight and Captum (the optional extra ``peers``).

Each test builds one small GPT-2 with random weights (transformers' ``GPT2LMHeadModel``)
and reads or edits its neurons both through this project and through a peer, on the
same weights and inputs, and asserts that the numbers agree:

- **activations**: the input of every layer's MLP output projection ``c_proj`` (the
  seam, :func:`skillneurons.neurons.hooks.capture_activations`, whole forward and the
  dump's early stop) equals TransformerLens's ``blocks.{l}.mlp.hook_post`` on a
  ``HookedTransformer`` loaded with the same weights (no folding or centring, so its
  activations are the model's own) and nnsight's saved input of ``mlp.c_proj``;
- **relevance**: paper B's Eqs. 2-3 (:func:`skillneurons.paper_b.relevance.relevance`,
  every definition) equal Captum's ``LayerGradientXActivation`` at the input of every
  ``c_proj`` (``attribute_to_layer_input=True``), reduced as the definition reduces;
- **deactivation**: the logits with a set of neurons zeroed by the project's edit of
  kind ``zero`` (and by paper B's :func:`skillneurons.paper_b.evaluation.deactivated`,
  by activations and by weights, and by the sweep's grouped edit) equal those of an
  nnsight intervention that sets the same neurons to zero.

nnsight wraps a copy of the model (wrapping replaces every submodule's ``forward`` for
good), so the two sides are two models with the same weights. A peer that is not
importable skips its tests with the command that installs it. The library itself never
imports a peer (:func:`test_the_library_never_imports_a_peer`).
"""

import ast
import copy
import importlib.metadata
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel

import benchmarks.__main__ as runner
import benchmarks.peers as peers_row
from benchmarks.common import Row
from benchmarks.peers import (
    captum_relevance,
    gpt2_blocks,
    hooked_transformer,
    import_peer,
    lens_capture,
    nnsight_capture,
    nnsight_zeroed,
)
from conftest import ROOT
from skillneurons.models.encoding import EncodedSplit, repeated_batch
from skillneurons.models.loading import LoadedModel
from skillneurons.neurons.hooks import capture_activations, edit_activations
from skillneurons.neurons.perturbation.noise import (
    PerturbationSettings,
    grouped_perturbation_edits,
    perturbation_edits,
)
from skillneurons.paper_b.classifiers import task_classifier
from skillneurons.paper_b.evaluation import deactivated
from skillneurons.paper_b.relevance import DEFINITIONS, relevance
from tiny_models import word_tokenizer

INSTALL = "pip install -e '.[peers]'"
#: The peers' import names (the extra ``peers`` installs them).
PEERS = ("transformer_lens", "nnsight", "captum")
LAYERS, HIDDEN, HEADS, VOCAB = 3, 32, 4, 64
BATCH, SEQ = 3, 7


def peer(name: str):
    """The peer's module (:func:`benchmarks.peers.import_peer`: nnsight without its
    process-wide patches, which would reach the tests after these), or a skip naming
    the extra that installs it."""
    try:
        return import_peer(name)
    except ImportError:
        pytest.skip(f"peer {name} is not installed: {INSTALL}")


@pytest.fixture(scope="module")
def gpt2() -> GPT2LMHeadModel:
    """A 3-layer GPT-2 with random weights, frozen, in eval mode (no dropout)."""
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=VOCAB,
        n_embd=HIDDEN,
        n_layer=LAYERS,
        n_head=HEADS,
        n_positions=32,
        bos_token_id=VOCAB - 1,
        eos_token_id=VOCAB - 1,
    )
    model = GPT2LMHeadModel(config).eval()
    model.requires_grad_(False)
    return model


@pytest.fixture(scope="module")
def tokens() -> torch.Tensor:
    return torch.randint(VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1))


def seam(model: GPT2LMHeadModel, tokens: torch.Tensor, stop: bool = False) -> torch.Tensor:
    """This project's activations ``[batch, layers, positions, neurons]``."""
    with torch.inference_mode(), capture_activations(model, stop=stop) as capture:
        model(input_ids=tokens)
    return capture.stacked()


def test_the_seam_is_transformer_lens_mlp_hook_post(gpt2, tokens):
    """On a ``HookedTransformer`` holding the model's weights unprocessed
    (:func:`benchmarks.peers.hooked_transformer`: no folding, no centring)."""
    peer("transformer_lens")
    hooked = hooked_transformer(gpt2)
    with torch.inference_mode():
        logits = hooked(tokens)
        expected = gpt2(input_ids=tokens).logits
    torch.testing.assert_close(logits, expected, rtol=1e-4, atol=1e-5)  # the same model
    theirs = torch.stack(lens_capture(hooked, tokens, stop=False), 1)
    assert theirs.shape == (BATCH, LAYERS, SEQ, 4 * HIDDEN)
    assert theirs.abs().max() > 0.01  # not a vacuous comparison
    torch.testing.assert_close(seam(gpt2, tokens), theirs, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(seam(gpt2, tokens, stop=True), theirs, rtol=1e-5, atol=1e-6)
    early = torch.stack(lens_capture(hooked, tokens, stop=True), 1)  # the benchmark's
    torch.testing.assert_close(early, theirs, rtol=0, atol=0)


def test_the_seam_is_nnsights_saved_mlp_activation(gpt2, tokens):
    """The input of ``c_proj`` (the benchmark's :func:`benchmarks.peers.nnsight_capture`,
    whole trace and stopped) and the output of the MLP's activation function, one place
    named twice; nnsight reads the modules in the order they run."""
    nnsight = peer("nnsight")
    wrapped = nnsight.NNsight(copy.deepcopy(gpt2))
    with torch.inference_mode(), wrapped.trace(tokens):
        activated = nnsight.save([block.mlp.act.output for block in wrapped.transformer.h])
    ours = seam(gpt2, tokens)
    assert ours.abs().max() > 0.01
    for stop in (False, True):
        theirs = torch.stack(nnsight_capture(wrapped, tokens, stop=stop), 1)
        torch.testing.assert_close(ours, theirs, rtol=0, atol=0)
    torch.testing.assert_close(ours, torch.stack(activated, 1), rtol=0, atol=0)


def test_the_peers_leave_the_rest_of_the_suite_as_it_was():
    """Imported through :func:`benchmarks.peers.import_peer`, nnsight mounts no ``.save``
    on every object and leaves ``torch.Tensor.backward`` torch's own, and
    TransformerLens leaves transformers' log level as it was (errors only otherwise)."""
    peer("transformer_lens")
    nnsight = peer("nnsight")
    assert transformers.logging.get_verbosity() == transformers.logging.WARNING  # its default
    assert nnsight.CONFIG.APP.PYMOUNT is False
    assert not hasattr(object(), "save") and not hasattr([], "save")
    assert "nnsight" not in torch.Tensor.backward.__code__.co_filename


# --------------------------------------------------------------------------- relevance


@pytest.fixture(scope="module")
def classifier(gpt2):
    """Paper B's classifier of a task with label words Negative / Positive on ``gpt2``
    (the next-token logits of the label words after the input)."""
    loaded = LoadedModel(gpt2, word_tokenizer(), "causal_lm", "tiny gpt2")
    return task_classifier(loaded, ["Negative", "Positive"]).eval()


@pytest.fixture(scope="module")
def split() -> EncodedSplit:
    """Six samples of 3 to 8 random tokens, shortest first (the order relevance batches
    them in), labels alternating."""
    generator = torch.Generator().manual_seed(2)
    ids = [torch.randint(5, 9, (length,), generator=generator).tolist() for length in range(3, 9)]
    return EncodedSplit(ids, None, torch.tensor([0, 1, 0, 1, 0, 1]))


@pytest.mark.parametrize("definition", DEFINITIONS)
def test_relevance_is_captums_gradient_times_activation(classifier, split, definition):
    """Captum's ``LayerGradientXActivation`` of each sample's loss at the input of every
    layer's ``c_proj`` (:func:`benchmarks.peers.captum_relevance`) gives ``g_t * a_t``
    per sample, position and neuron; Eqs. 2-3 reduce it by the definition: ``sample_abs``
    ``|Σ_t g_t a_t|`` per sample, ``token_abs`` ``Σ_t |g_t a_t|`` per sample, each then
    averaged over the samples, ``dataset_abs`` ``|Σ_samples Σ_t g_t a_t|`` / samples."""
    peer("captum.attr")
    theirs = captum_relevance(classifier, split, definition)
    ours = relevance(classifier, split, batch_size=len(split), definition=definition)
    assert ours.shape == theirs.shape == (LAYERS, 4 * HIDDEN)
    assert ours.max() > 0 and (ours > 0).mean() > 0.9  # nearly every neuron matters a bit
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6 * ours.max())


def test_the_definitions_differ_as_captums_reductions_do(classifier, split):
    """The comparison above can tell the definitions apart: on these samples they give
    different relevance, and |Σ| <= Σ|.| orders them."""
    values = {name: relevance(classifier, split, len(split), name) for name in DEFINITIONS}
    assert (values["dataset_abs"] <= values["sample_abs"] + 1e-12).all()
    assert (values["sample_abs"] <= values["token_abs"] + 1e-12).all()
    assert not np.allclose(values["sample_abs"], values["token_abs"], rtol=1e-3)
    assert not np.allclose(values["dataset_abs"], values["sample_abs"], rtol=1e-3)


# --------------------------------------------------------------------------- deactivation

#: The neurons deactivated: {layer: indices}.
OFF = {0: [1, 5, 7, 40], 2: [0, 3, 100, 127]}


def zeroed(model, tokens: torch.Tensor, neurons) -> torch.Tensor:
    """``model``'s logits with ``neurons`` set to 0 at every position by an nnsight
    intervention on the input of each layer's ``c_proj`` (the benchmark's
    :func:`benchmarks.peers.nnsight_zeroed`)."""
    nnsight = peer("nnsight")
    wrapped = nnsight.NNsight(copy.deepcopy(model))
    return nnsight_zeroed(wrapped, gpt2_blocks, {"input_ids": tokens}, neurons).logits


def test_the_zero_edit_is_nnsights_zeroing(gpt2, tokens):
    theirs = zeroed(gpt2, tokens, OFF)
    neurons = {layer: torch.tensor(chosen) for layer, chosen in OFF.items()}
    edits = perturbation_edits(gpt2, neurons, PerturbationSettings(kind="zero"))
    with torch.inference_mode():
        clean = gpt2(input_ids=tokens).logits
        with edit_activations(gpt2, edits):
            ours = gpt2(input_ids=tokens).logits
        with deactivated(gpt2, OFF):
            paper_b = gpt2(input_ids=tokens).logits
        with deactivated(gpt2, OFF, by="weights"):
            by_weights = gpt2(input_ids=tokens).logits
    assert (ours - clean).abs().max() > 1e-4  # the deactivation changes the logits
    torch.testing.assert_close(ours, theirs, rtol=0, atol=0)
    torch.testing.assert_close(paper_b, theirs, rtol=0, atol=0)
    torch.testing.assert_close(by_weights, theirs, rtol=1e-5, atol=1e-6)


def test_the_sweeps_grouped_zero_edit_is_one_nnsight_intervention_per_condition(gpt2, tokens):
    """The batched sweep (:func:`skillneurons.neurons.perturbation.sweep.grouped_predictions`)
    zeroes each condition's neurons in its own rows of one pass; every condition's rows
    are the logits of its own nnsight intervention (to the rounding of a larger
    product)."""
    conditions = [OFF, {1: [2, 9]}, {0: list(range(0, 128, 3)), 1: [4], 2: [127]}]
    edits = grouped_perturbation_edits(
        gpt2,
        [{layer: torch.tensor(n) for layer, n in c.items()} for c in conditions],
        PerturbationSettings(kind="zero"),
    )
    rows = repeated_batch({"input_ids": tokens}, len(conditions))
    with torch.inference_mode(), edit_activations(gpt2, edits):
        ours = gpt2(**rows).logits.view(len(conditions), *tokens.shape, VOCAB)
    for group, neurons in enumerate(conditions):
        torch.testing.assert_close(ours[group], zeroed(gpt2, tokens, neurons))
    assert (ours[0] - ours[1]).abs().max() > 1e-4  # the conditions differ


def test_the_benchmark_row_checks_and_times_every_peer():
    """``python -m benchmarks --rows peers`` on tiny sizes (a check of its code path, not
    a measurement): each pair of paths is checked equal before it is timed (the row
    raises otherwise), and every ratio is reported."""
    for name in PEERS:
        peer(name)
    row = peers_row.run(1, tiny=True)
    assert [ratio.name.split(": ")[-1] for ratio in row.ratios] == [
        "this project / Captum",
        "this project / TransformerLens",
        "this project / nnsight",
        "this project / nnsight",
    ]
    assert all(ratio.value > 0 and ratio.target == 1.0 for ratio in row.ratios)
    for dist in peers_row.PEERS.values():  # the versions measured are reported
        assert f"{dist} {importlib.metadata.version(dist)}" in row.lines[0]


def test_the_benchmark_row_skips_what_is_not_installed(monkeypatch, capsys):
    """Without the extra the row prints that it skipped, and misses no target; without
    one peer only that peer's ratios are skipped."""
    monkeypatch.setattr(peers_row, "installed", lambda name: False)
    assert runner.main(["--rows", "peers", "--check"]) == 0
    out = capsys.readouterr().out
    assert "peers: skipped, none is installed (pip install -e '.[peers]')" in out
    peer("captum")
    monkeypatch.setattr(peers_row, "installed", lambda name: name == "captum")
    part = peers_row.Part()
    peers_row.capture(part, peers_row.gpt2(tiny=True), 1, 2, 8)
    assert part.ratios == [] and [line.split(": ")[-1] for line in part.lines] == [
        "skipped, TransformerLens is not installed (pip install -e '.[peers]')",
        "skipped, nnsight is not installed (pip install -e '.[peers]')",
    ]


def test_the_benchmark_row_runs_only_when_named(monkeypatch, capsys):
    """``python -m benchmarks`` leaves the peers row out (minutes on 2 cores); ``--rows
    peers`` runs it."""

    def row(name):
        return SimpleNamespace(run=lambda repeats: Row(name, [f"ran {name}"], []))

    monkeypatch.setattr(runner, "ROWS", {"fast": row("fast"), "peers": row("peers")})
    assert runner.main([]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["ran fast"]
    assert runner.main(["--rows", "peers"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["ran peers"]


def test_the_library_never_imports_a_peer():
    """Only tests and benchmarks import the peers: the pipeline runs without the extra."""
    for path in (ROOT / "workflow").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            roots = {name.split(".")[0] for name in names}
            assert not roots & set(PEERS), f"{path.relative_to(ROOT)} imports {roots}"
