"""The README is a guide (at most 300 lines, no commit hashes) whose links, like the
docs' own, lead to files that exist."""

import re

from conftest import ROOT

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_readme_is_a_guide_of_at_most_300_lines_without_commit_hashes():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert COMMIT.findall(readme) == []


def test_every_relative_link_of_the_readme_and_the_docs_exists():
    broken = [
        (page.relative_to(ROOT).as_posix(), target)
        for page in pages()
        for target in LINK.findall(page.read_text())
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert broken == []


def test_commit_pattern_finds_hashes_but_not_words():
    assert COMMIT.findall("at 5d56c97 and b3d3139, not decade or 1234567") == [
        "5d56c97",
        "b3d3139",
    ]
