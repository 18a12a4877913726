"""The figure registries and the rules that write their files cannot drift apart: each
rule declares its output paths itself (workflow/rules/), the registries list the same
files (for rule all, the README's figure table, the report), and Snakemake's own
reading of the rules (tests/workflow_probe.py) must give exactly the registry's files,
keys and report flags."""

import re

from conftest import ROOT
from skillneurons.paper_a.registry import PAPER_A
from skillneurons.paper_b.registry import PAPER_B

RESULTS = "results/{model}/"


def registered(output, made) -> list[list]:
    """A registry product as a rule would declare it: [key, path, report flag]."""
    return [
        [key, RESULTS + path, [made.report[key], output.category] if key in made.report else None]
        for key, path in made.files.items()
    ]


def test_every_registry_product_is_exactly_its_rules_declared_outputs(rules):
    for output in PAPER_A + PAPER_B:
        for made in output.products:
            declared = [entry for entry in rules[made.rule]["outputs"] if entry[0] in made.files]
            assert declared == registered(output, made), f"{output.id}: rule {made.rule}"


def test_no_rule_writes_a_table_figure_or_report_entry_the_registries_lack(rules):
    registered_files = {
        (made.rule, key)
        for output in PAPER_A + PAPER_B
        for made in output.products
        for key in made.files
    }
    for name, rule in rules.items():
        for key, path, shown in rule["outputs"]:
            is_paper_file = path.startswith((RESULTS + "tables/", RESULTS + "figures/"))
            if is_paper_file or (shown is not None and name != "verdicts"):
                assert (name, key) in registered_files, f"rule {name} writes {path} unregistered"


def test_report_captions_exist():
    captions = {
        caption
        for output in PAPER_A + PAPER_B
        for made in output.products
        for caption in made.report.values()
    }
    missing = [c for c in captions if not (ROOT / "workflow/report" / f"{c}.rst").is_file()]
    assert missing == []


def rule_block(source: str, rule: str) -> str:
    """The text of ``rule`` in the rule file ``source`` (under workflow/rules/)."""
    text = (ROOT / "workflow/rules" / source).read_text()
    start = re.search(rf"^(rule {rule}:|use rule \w+ as {rule} with:)$", text, re.M)
    assert start, f"{rule} is not defined in {source}"
    end = re.search(r"^\S", text[start.end() :], re.M)
    return text[start.start() : start.end() + (end.start() if end else len(text))]


def test_a_paper_id_leads_to_the_output_of_the_rule_that_writes_it():
    """B-T1's and A-F4's files are spelled in the output of the rule that writes them,
    so that grep finds the rule from the paper ID."""
    by_id = {output.id: output for output in PAPER_A + PAPER_B}
    for paper_id, source in (
        ("B-T1, B-T6", "paper_b/neurons.smk"),
        ("A-F4", "paper_a/perturbation.smk"),
    ):
        (product,) = by_id[paper_id].products
        block = rule_block(source, product.rule)
        output = block.split("\n    output:\n")[1].split("\n    log:\n")[0]
        for path in product.files.values():
            assert f'"{RESULTS}{path}"' in output, (product.rule, path)
