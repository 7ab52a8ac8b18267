#!/usr/bin/env python3
"""tests/docs/check_links.py — every relative link of README.md and docs/ names a file that exists, and a
`#anchor` into a Markdown page names one of its headings (GitHub's slugs), so moving a page or renaming a
section cannot leave the manual pointing nowhere.

  check_links.py ROOT      prints each broken link as page:line and exits 1 if there is one
"""
import pathlib
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")  # `...` or ``...``: code, not Markdown
HEADING = re.compile(r"^#{1,6}\s+(.*)$")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page):
    out, code = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            code = not code
        elif not code and HEADING.match(line):
            out.add(slug(HEADING.match(line).group(1)))
    return out


def broken(root):
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for page in pages:
        code = False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                code = not code
            if code:
                continue
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                file = (page.parent / path).resolve() if path else page
                where = f"{page.relative_to(root)}:{number}"
                if not file.exists():
                    yield f"{where}: {target}: no such file"
                elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                    yield f"{where}: {target}: {file.name} has no heading with that anchor"


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    problems = list(broken(pathlib.Path(argv[0]).resolve()))
    print("\n".join(problems) if problems else "every link resolves")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
