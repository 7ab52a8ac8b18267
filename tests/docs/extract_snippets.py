#!/usr/bin/env python3
"""tests/docs/extract_snippets.py — one C++ translation unit from every ```cpp block of a Markdown page, so
that the build compiles and links the manual's code (tests/docs/meson.build) and a broken snippet fails it.

A block's info string says how it is compiled:
  ```cpp             declarations at namespace scope (functions, classes); a block defining `int main(`
                     is a whole program and stays at global scope (one per page)
  ```cpp fragment    statements: the body of a function of their own
  ```cpp continued   more statements of the fragment before it, in the same scope (one session in steps)
  ```cpp PATH        (any language, e.g. ```toml core/native_functions.toml) an excerpt of the project's file
                     PATH (a path with a '/'): not compiled here, the file is; --excerpts checks that the block
                     is a run of the file's lines, verbatim, so a page that walks through real code cannot drift
Any other info string starting with cpp, c++, cc or cxx is refused, so no C++ block goes unchecked.
A Markdown table with a column headed "torchless (compiled)" is code too: each cell of that column that is
one `code span` becomes the statement block `{ CELL; }` in the scope of the fragment before the table (a
table of names, each row compiled); a cell without a code span (a name not there yet) is prose.
Each block lands in a namespace of its own, its #include lines hoisted to the top of the unit (after
<iostream> and <torchless/torchless.h>, which every block may assume), and `#line` directives make
compiler errors name the page's lines.
Includes are written as a user writes them against the installed library (<torchless/models/resnet.h>);
in the source tree they become the project-rooted paths ("models/resnet.h").

  extract_snippets.py PAGE.md OUT.cpp                  writes the unit
  extract_snippets.py --unlisted ROOT PAGE.md...       names each page under ROOT with a C++ block that is
                                                       not among PAGE.md... (exits 1 if there is one)
  extract_snippets.py --excerpts ROOT PAGE.md...       names each excerpt block that is not verbatim in its file
"""
import pathlib
import re
import sys

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(.*)$")
CPP = re.compile(r"^(cpp|c\+\+|cc|cxx)(\s|$)", re.I)
INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"])([^>\"]+)[>\"]")
KINDS = ("", "fragment", "continued")
MAIN = re.compile(r"^int\s+main\s*\(")


class SnippetError(Exception):
    pass


def fenced(text, name):
    """(info string, first line number, lines) of each fenced block in `text`."""
    out, fence, info, start, body = [], None, "", 0, []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence is None:
            m = FENCE.match(stripped)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):  # CommonMark: no ` in a ``` info string
                fence, info, start, body = m.group(1), m.group(2).strip(), number + 1, []
            continue
        if len(stripped) >= len(fence) and stripped == fence[0] * len(stripped):  # the closing fence
            out.append((info, start, body))
            fence = None
        else:
            body.append(line)
    if fence is not None:
        raise SnippetError(f"{name}:{start - 1}: code block never closed")
    return out


def excerpt_path(info):
    """The file an info string quotes (```cpp ops/silu.cpp), or None."""
    words = info.split()
    return words[1] if len(words) == 2 and "/" in words[1] else None


def blocks(text, name):
    """(kind, first line number, lines) of each C++ block in `text` that is compiled here; other blocks,
    excerpts included, are skipped."""
    out = []
    for info, start, body in fenced(text, name):
        if not CPP.match(info) or excerpt_path(info):
            continue
        words = info.split()
        kind = words[1] if len(words) == 2 else None if len(words) > 2 else ""
        if words[0] != "cpp" or kind not in KINDS:
            raise SnippetError(f"{name}:{start - 1}: C++ block with info string '{info}': write ```cpp, "
                               "```cpp fragment, ```cpp continued or ```cpp PATH (an excerpt of a file), so that "
                               "the block is compiled")
        out.append((kind, start, body))
    return out


COMPILED_COLUMN = "torchless (compiled)"


def table_row(line):
    """The cells of a Markdown table row, `\\|` unescaped inside them."""
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [c.strip().replace("\\|", "|") for c in cells]


def table_cells(text, name):
    """(line number, code) of each compiled cell: a code span in a table's "torchless (compiled)" column,
    outside fenced blocks."""
    out, fence, column = [], None, None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        m = FENCE.match(stripped)
        if fence is None and m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence, column = m.group(1), None
            continue
        if fence is not None:
            if len(stripped) >= len(fence) and stripped == fence[0] * len(stripped):
                fence = None
            continue
        if not stripped.startswith("|"):
            column = None
            continue
        cells = table_row(stripped)
        if column is None:
            column = cells.index(COMPILED_COLUMN) if COMPILED_COLUMN in cells else -1
            continue
        if column < 0 or column >= len(cells) or re.fullmatch(r"[-: ]+", cells[column]):
            continue
        span = re.fullmatch(r"`([^`]+)`", cells[column])
        if span:
            out.append((number, span.group(1)))
        elif "`" in cells[column]:
            raise SnippetError(f"{name}:{number}: a compiled cell is one `code span` or prose, got "
                               f"'{cells[column]}'")
    return out


def excerpt_errors(text, name, root):
    """What is wrong with each excerpt block of a page: a file that does not exist, or a block that is not a
    run of its lines, verbatim."""
    errors = []
    for info, start, body in fenced(text, name):
        path = excerpt_path(info)
        if path is None:
            continue
        source = root / path
        if not source.is_file():
            errors.append(f"{name}:{start - 1}: the block quotes {path}, which does not exist")
            continue
        lines = source.read_text().splitlines()
        n = len(body)
        if n == 0 or not any(lines[i:i + n] == body for i in range(len(lines) - n + 1)):
            errors.append(f"{name}:{start - 1}: the block is not a run of {path}'s lines as they are now: "
                          "copy them again")
    return errors


def source_include(line, root):
    """An #include line as the source tree spells it: <torchless/core/tensor.h> is "core/tensor.h" (the
    installed headers' own folder holds only the umbrella headers, torchless/torchless.h and trace.h)."""
    m = INCLUDE.match(line)
    target = m.group(2)
    if m.group(1) == "<" and target.startswith("torchless/") and not (root / target).exists():
        return f'"{target[len("torchless/"):]}"'
    return f"<{target}>" if m.group(1) == "<" else f'"{target}"'


def unit(text, name, root):
    """The translation unit of a page: hoisted includes, then one namespace per block or fragment; the
    block defining `int main(` (at most one) stays at global scope as the program's main."""
    includes, parts, program = ["<iostream>", "<torchless/torchless.h>"], [], None
    fragment_open = False
    cells = [(start, "cell", [f"{{ {code}; }}"]) for start, code in table_cells(text, name)]
    events = sorted([(start, kind, body) for kind, start, body in blocks(text, name)] + cells, key=lambda e: e[0])
    for index, (start, kind, body) in enumerate(events, 1):
        lines = []
        for line in body:
            if INCLUDE.match(line):
                spelled = source_include(line, root)
                if spelled not in includes:
                    includes.append(spelled)
                line = ""
            lines.append(line)
        code = f'#line {start} "{name}"\n' + "\n".join(lines)
        if kind in ("continued", "cell"):
            if not fragment_open:
                what = "a compiled table cell" if kind == "cell" else "a ```cpp continued block"
                raise SnippetError(f"{name}:{start - 1}: {what} must follow a ```cpp fragment "
                                   "or a continued block")
            parts.append(code)
            continue
        if fragment_open:
            parts.append("}\n}")
        fragment_open = kind == "fragment"
        if not fragment_open and any(MAIN.match(line) for line in lines):
            if program is not None:
                raise SnippetError(f"{name}:{start - 1}: a second block with `int main(` (the first is at line "
                                   f"{program - 1}): a page holds one program")
            program = start
            parts.append(code)
            continue
        parts.append(f"namespace docs_snippet_{index} {{" + ("\nvoid fragment() {" if fragment_open else ""))
        parts.append(code)
        if not fragment_open:
            parts.append("}")
    if fragment_open:
        parts.append("}\n}")
    head = [f"// Generated by tests/docs/extract_snippets.py from {name}: its C++ blocks, compiled and linked."]
    tail = [] if program else ["int main() {}"]
    return "\n".join(head + [f"#include {i}" for i in includes] + parts + tail + [""])


def main(argv):
    try:
        if len(argv) >= 2 and argv[0] == "--unlisted":
            root = pathlib.Path(argv[1]).resolve()
            listed = {pathlib.Path(p).resolve() for p in argv[2:]}
            pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
            unlisted = [p for p in pages if p not in listed and blocks(p.read_text(), str(p.relative_to(root)))]
            for p in unlisted:
                print(f"{p.relative_to(root)} has C++ blocks but is not compiled: add it to tests/docs/meson.build")
            return 1 if unlisted else 0
        if len(argv) >= 2 and argv[0] == "--excerpts":
            root = pathlib.Path(argv[1]).resolve()
            errors = []
            for p in argv[2:]:
                page = pathlib.Path(p).resolve()
                errors += excerpt_errors(page.read_text(), str(page.relative_to(root)), root)
            for e in errors:
                print(e)
            return 1 if errors else 0
        if len(argv) == 2:
            page = pathlib.Path(argv[0]).resolve()
            root = page.parent
            while not (root / "torchless" / "torchless.h").exists() and root != root.parent:
                root = root.parent
            text = unit(page.read_text(), str(page.relative_to(root)), root)
            out = pathlib.Path(argv[1])
            if not out.exists() or out.read_text() != text:
                out.write_text(text)
            return 0
    except SnippetError as e:
        print(f"extract_snippets.py: {e}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
