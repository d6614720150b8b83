"""The documentation's links resolve: every relative link and #anchor in README.md,
docs/, bench/README.md and src/README.md points at a file that exists and, where it
names one, at a heading of that file (GitHub's anchors). And README.md stays a
front door: at most 200 lines, with `make run` and `make test` on its first screen.

No server: these tests read files only."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
README_MAX_LINES = 200
FIRST_SCREEN_LINES = 40

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+).*?\1")
# [text](target) and ![alt](target); the target may be followed by a "title".
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # https:, mailto:, ...


def documentation_files() -> list[Path]:
    files = [REPO_ROOT / "README.md", REPO_ROOT / "bench" / "README.md",
             REPO_ROOT / "src" / "README.md"]
    files += sorted((REPO_ROOT / "docs").rglob("*.md"))
    return files


def prose_lines(text: str):
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            if fenced is None:
                fenced = fence.group(1)
            elif fence.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, line


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: its text as rendered, lower case, punctuation
    other than hyphens and underscores removed, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w))", "", text)  # emphasis markers
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a markdown file; repeats get -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        heading = HEADING.match(line)
        if not heading:
            continue
        anchor = github_anchor(heading.group(2))
        if anchor in seen:
            seen[anchor] += 1
            anchor = f"{anchor}-{seen[anchor]}"
        else:
            seen[anchor] = 0
        found.add(anchor)
    return found


def links(path: Path):
    """(line number, target) of each link in the file's prose (not in code)."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, match.group(1)


def broken_links(path: Path, root: Path = REPO_ROOT) -> list[str]:
    """'file:line: target (why)' for each relative link or anchor that does not resolve."""
    problems = []
    for number, target in links(path):
        if EXTERNAL.match(target):
            continue
        where = f"{path.relative_to(root)}:{number}: {target}"
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        if not destination.exists():
            problems.append(f"{where} (no such file)")
            continue
        try:
            destination.relative_to(root.resolve())
        except ValueError:
            problems.append(f"{where} (outside the repository)")
            continue
        if anchor:
            if destination.suffix != ".md" or destination.is_dir():
                problems.append(f"{where} (an anchor into a file that is not markdown)")
            elif anchor not in anchors(destination):
                problems.append(f"{where} (no heading with that anchor)")
    return problems


def test_every_documentation_file_exists():
    missing = [str(p) for p in documentation_files() if not p.is_file()]
    assert not missing, missing
    assert len(list((REPO_ROOT / "docs").glob("*.md"))) >= 5


def test_every_relative_link_and_anchor_resolves():
    problems = [p for path in documentation_files() for p in broken_links(path)]
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_every_docs_page_is_linked_from_the_readme():
    readme_targets = {t.partition("#")[0] for _, t in links(REPO_ROOT / "README.md")}
    pages = [p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "docs").glob("*.md")]
    pages.append("bench/README.md")
    unlinked = sorted(set(pages) - readme_targets)
    assert not unlinked, f"README.md links none of: {unlinked}"


def test_the_readme_is_a_front_door():
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"
    first_screen = "\n".join(lines[:FIRST_SCREEN_LINES])
    assert "make run" in first_screen and "make test" in first_screen


# -- the checker itself can fail ------------------------------------------------------

def test_the_checker_reports_broken_links_and_anchors(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` section, with (punctuation)\n")
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "# Page",
        "## Same heading",
        "## Same heading",
        "[fine](other.md) [fine](other.md#a-code-section-with-punctuation)",
        "[fine](#same-heading) [fine](#same-heading-1) [external](https://example.com/x.md)",
        "[gone](missing.md) [bad anchor](other.md#no-such-section) [bad local](#nowhere)",
        "`[in a code span](missing-in-span.md)`",
        "```",
        "[in a fence](missing-in-fence.md)",
        "```",
    ]) + "\n")
    problems = broken_links(page, root=tmp_path)
    assert problems == [
        "page.md:6: missing.md (no such file)",
        "page.md:6: other.md#no-such-section (no heading with that anchor)",
        "page.md:6: #nowhere (no heading with that anchor)",
    ], problems


def test_anchors_follow_github():
    assert github_anchor("Triton 2.51's flags, one by one") == "triton-251s-flags-one-by-one"
    assert github_anchor("HTTP/REST endpoints (KServe v2)") == "httprest-endpoints-kserve-v2"
    assert github_anchor("`--model-store` and **bold**") == "--model-store-and-bold"
    assert github_anchor("PyTorch backend (TorchScript)") == "pytorch-backend-torchscript"
