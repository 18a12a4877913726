"""Perturbing neurons in a given order and measuring accuracy (paper A, §4.2, appendix D/H).

Paper A perturbs "the top x% neurons" in the descending predictivity order of a
source task (or in random order) by adding Gaussian noise (mu 0, sigma 0.1) to their
activations, and plots the evaluation task's accuracy against the perturbation rate
x (Figures 4, 11, 12, 13, 15). This package does that for any classifier, one idea a
module:

- :mod:`.orders`: a **neuron order** is a 1-D int64 array of *flat neuron ids* over
  every FFN site of the classifier's backbone
  (:func:`skillneurons.models.sites.ffn_sites`): the id of neuron ``n`` of layer ``l``
  is ``sum(widths[:l]) + n``, i.e. ``l * width + n`` when all layers are equally wide
  (every supported model). :meth:`skillneurons.neurons.ranking.Ranking.order` turns a
  ranking into one, :func:`.orders.uniform_random_orders` and
  :func:`.orders.layer_matched_random_orders` draw seeded random ones,
  :func:`.orders.perturbation_orders` lists the orders one file sweeps, and
  :func:`skillneurons.neurons.ranking.split_flat` maps a prefix back to
  ``{layer: neurons}``. Rate ``r`` perturbs the first ``round(r * N)`` neurons of the
  order (N = all neurons, rounded half up; :func:`.orders.perturbed_count`);
- :mod:`.noise`: the perturbation (:class:`.noise.PerturbationSettings`) is applied by
  :func:`skillneurons.neurons.hooks.edit_activations` at the input of each FFN output
  projection, so only the chosen neurons change and everything else is bit-identical;
- :mod:`.sweep`: :func:`.sweep.sweep_orders` returns every order's accuracy at every
  rate; rate 0 installs no hook at all and reproduces the unperturbed accuracy exactly;
- :mod:`.files`: a task's trained trials, loaded one at a time, swept and written as
  one perturbation file;
- :mod:`.curve_table`: the one contract of the curve table those files hold (columns,
  dtypes, validation, reading, writing and the views the reports take of it); it loads
  no torch.

Defaults follow the original code (THU-KEG/Skill-Neuron, ``addmask``), the only
description more precise than the paper's text: noise is added at **every** position
of the sequence (``positions="all"``), with **one draw per sample and neuron** shared
by all positions (``draw="sample"``). ``positions="prompt"`` (only the soft-prompt
positions where predictivity is measured) and ``draw="position"`` (independent noise
at every position) are the alternatives. ``kind="zero"`` sets the activations to 0
and ``kind="baseline"`` to the baseline activation ``a_bsl`` (Eq. 3), both also in the
original code.

Paper A (§4.2) adds the noise "into the neurons' activations" in absolute units
(sigma 0.1) and measures no std. With ``unit="neuron_std"`` (ours) sigma is a multiple
of each neuron's activation std, and that std is measured **where the noise is
applied** (:func:`.noise.noise_scale`): for ``positions="all"``, over every position the
backbone reads (``[MASK]``, soft prompts, input tokens; not the padding, which no real
position attends to, so noise there changes nothing), pooled over the baseline samples
(:func:`skillneurons.neurons.activations.position_std`); for ``positions="prompt"``,
over the soft-prompt positions, pooled the same way.

Common random numbers: the noise of a (sample, neuron) pair is the same in every order
and at every rate, so curve differences carry no noise of their own. Each layer draws
from its own generator, seeded with ``settings.seed`` and the layer at the start of
every evaluation, a value for **every** neuron of the layer (then keeps the perturbed
ones), batch after batch in the fixed batch order of
:func:`skillneurons.models.training.predict`; which neurons are perturbed never changes
what a neuron draws.

Which classifiers: any module whose ``forward(input_ids, attention_mask, ...)`` returns
label logits ``[batch, labels]`` (what :func:`skillneurons.models.training.predict` calls) and
that contains a backbone with FFN sites: prompt-tuned, adapter or BitFit models.
"""
