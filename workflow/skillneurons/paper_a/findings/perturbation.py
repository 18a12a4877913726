"""§4.2's central claim (perturbing a task's top skill neurons hurts more than random
neurons, Figure 4, A-F4/A-F11) on the paper's design and on two of ours, and its appendix H
variant in the selectivity index's order (Figure 15, A-F15): each an area gap of the
perturbation curves (:func:`skillneurons.paper_a.findings.gaps.gap_claim`)."""

from __future__ import annotations

from skillneurons.reporting.curves import AREA_BASIS, AREA_MARGIN
from skillneurons.reporting.findings import Claim

#: §4.2's central claim on the paper's design (rule perturbation_paper_design): noise
#: of perturbation.paper_sigma (paper: 0.1) in absolute units, one draw per sample and
#: neuron at every position, against uniform random orders.
TOP_PAPER = Claim(
    "perturbing a task's top skill neurons hurts more than random neurons",
    "§4.2, A-F4/A-F11 (the paper's design)",
    "area(uniform random) - area(own order), mean over evaluation tasks; Gaussian noise "
    "of perturbation.paper_sigma (paper: 0.1) in absolute units, one draw per sample and "
    "neuron at every position",
    "trials, random orders, test samples of each task",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central",
)
#: Two comparisons under the configured noise (perturbation.sigma, unit, ...:
#: the design of the figures; by default 1 neuron std, which means the same on models
#: whose activations have different scales).
TOP_UNIFORM = Claim(
    "perturbing a task's top skill neurons hurts more than random neurons, at the "
    "configured noise",
    "§4.2, A-F4/A-F11 (ours: perturbation.sigma in perturbation.unit)",
    "area(uniform random) - area(own order), mean over evaluation tasks; the configured "
    "noise (perturbation.sigma, perturbation.unit)",
    "trials, random orders, test samples of each task",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central_configured",
)
TOP = Claim(
    "perturbing a task's top skill neurons hurts more than layer-matched random neurons, "
    "at the configured noise",
    "§4.2, A-F4/A-F11 (ours: layer-matched control, perturbation.sigma in perturbation.unit)",
    "area(layer-matched random) - area(own order), mean over evaluation tasks; the "
    "configured noise (perturbation.sigma, perturbation.unit)",
    "test samples of each task, trials, random orders",
    "own order below random at every rate (Figure 4)",
    margin=AREA_MARGIN,
    margin_basis=AREA_BASIS,
    key="central_configured_matched",
)
SELECTIVITY = Claim(
    "the predictivity order beats the selectivity index",
    "App. H, A-F15",
    "area(selectivity order) - area(predictivity order), mean over evaluation tasks",
    "test samples of each task, trials",
    "predictivity order hurts more (Figure 15)",
    margin=0.01,
    margin_basis="half the paper's effect (Figure 15: the selectivity curve about 0.1 "
    "accuracy above ours over rates 0-0.2, an area of 0.02)",
    key="selectivity",
)
