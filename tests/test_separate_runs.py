"""Several runs (paper-B training runs, prompt-tuning trials) in one job, each computing
what a job of its own computed: the random state each run starts from, a
freshly loaded model per run, and the job log's lines marked with the run."""

from __future__ import annotations

import torch

from skillneurons.infra.runlog import LOG, job_log
from skillneurons.infra.separate import separate_runs
from skillneurons.models.loading import fresh_models
from tiny_models import tiny, word_tokenizer


def test_each_run_draws_what_the_first_drew_whatever_the_runs_before_drew():
    torch.manual_seed(11)
    alone = torch.rand(4)  # what a job of its own draws first
    torch.manual_seed(11)
    draws = []
    for index, run in separate_runs([0, 1, 2]):
        draws.append(torch.rand(4))
        torch.rand(100 * (index + 1))  # each run uses the generator differently
        torch.manual_seed(run + 99)  # or reseeds it, as LoRA's init does
    for draw in draws:
        assert torch.equal(draw, alone)
    # after the runs, the generator is where the last run left it (not put back)
    assert not torch.equal(torch.rand(4), alone)


def test_the_job_log_marks_each_runs_lines(tmp_path):
    log = tmp_path / "job.log"
    with job_log(str(log), "dump_activations", {"task": "syn_sst2"}):
        for _ in separate_runs([0, 1], "trial"):
            LOG.info("dumping")
        LOG.info("after the trials")
    lines = log.read_text().splitlines()
    dumping = [line for line in lines if line.endswith("dumping")]
    assert len(dumping) == 2
    assert " [trial 0] dumping" in dumping[0] and " [trial 1] dumping" in dumping[1]
    assert [line for line in lines if line.endswith("[trial 1] started, 2 of 2")]
    after = next(line for line in lines if line.endswith("after the trials"))
    assert "[trial" not in after


def test_the_failure_line_names_the_run_the_job_failed_in(tmp_path):
    log = tmp_path / "job.log"
    try:
        with job_log(str(log), "dump_activations", {"task": "syn_sst2"}):
            for _, trial in separate_runs([0, 1, 2], "trial"):
                if trial == 1:
                    raise ValueError("no prompt")
    except ValueError:
        pass
    failed = [line for line in log.read_text().splitlines() if " ERROR " in line]
    assert len(failed) == 1 and failed[0].endswith(
        " [trial 1] rule dump_activations failed (task=syn_sst2): ValueError: no prompt"
    )
    # a job that fails after its runs finished is not marked with the last of them
    try:
        with job_log(str(log), "findings", {}):
            for _ in separate_runs([0], "trial"):
                pass
            raise ValueError("no table")
    except ValueError:
        pass
    last = [line for line in log.read_text().splitlines() if " ERROR " in line][-1]
    assert last.endswith(" ERROR rule findings failed (): ValueError: no table")


def test_every_run_gets_the_base_weights_and_a_finished_runs_are_dropped(tmp_path):
    saved = tiny("masked_lm", word_tokenizer())
    saved.model.save_pretrained(tmp_path, safe_serialization=True)
    saved.tokenizer.save_pretrained(tmp_path)
    base = {name: p.detach().clone() for name, p in saved.model.named_parameters()}
    models = []
    for index, run, loaded in fresh_models({"source": str(tmp_path)}, 1, 0, [3, 4]):
        assert run == [3, 4][index]
        for name, parameter in loaded.model.named_parameters():
            assert torch.equal(parameter, base[name]), (run, name)
        with torch.no_grad():  # a full fine-tuning's worth of change
            for parameter in loaded.model.parameters():
                parameter.add_(1.0)
        models.append(loaded.model)
    assert models[0] is not models[1]
    # run 3's weights were freed before run 4 loaded; run 4's after the last run
    assert {p.device.type for model in models for p in model.parameters()} == {"meta"}
