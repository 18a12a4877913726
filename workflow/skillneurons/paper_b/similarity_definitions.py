"""The similarity definitions of B-F3 and B-T4 (paper B, §5.2), each with its label on
B-F3's axis.

One table, read by the similarity computation (:mod:`skillneurons.paper_b.similarity`,
which says what each definition computes, and imports torch), by the claims
(:mod:`skillneurons.paper_b.similarity_report`) and by B-F3's figure (its script passes
the labels to :func:`skillneurons.reporting.figures.similarity_layers_figure`); free of
torch, so that the table and findings scripts start fast. The schema's
``paper_b.generalization.similarity`` lists the same names in the same order.
"""

from __future__ import annotations

#: Every similarity definition (config ``paper_b.generalization.similarity``, in the
#: schema's order) with its label on B-F3's y axis.
DEFINITIONS = {
    "centroid": "cosine of mean parameters (paper)",
    "rank_paired": "cosine of rank-paired parameters",
    "delta_centroid": "cosine of mean parameter changes",
    "norm_weighted_overlap": "norm-weighted set overlap",
}
#: Paper B §5.2's cosine (:mod:`skillneurons.paper_b.similarity`), the default.
PAPER_DEFINITION = "centroid"
