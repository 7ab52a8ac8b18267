#!/usr/bin/env python3
"""tests/docs/test_extract_snippets.py — how extract_snippets.py wraps a page's C++ blocks, and what it refuses."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import extract_snippets  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def unit(page):
    return extract_snippets.unit(page, "docs/page.md", ROOT)


class Wrapping(unittest.TestCase):
    def test_declarations_get_a_namespace_and_includes_move_to_the_top(self):
        text = unit("# t\n\n```cpp\n#include <torchless/models/resnet.h>\n#include <iostream>\nint f();\n```\n")
        self.assertEqual(text.splitlines()[1:7], [
            "#include <iostream>", "#include <torchless/torchless.h>", '#include "models/resnet.h"',
            "namespace docs_snippet_1 {", '#line 4 "docs/page.md"', ""])
        self.assertTrue(text.endswith("int f();\n}\nint main() {}\n"))

    def test_a_whole_program_keeps_its_main_at_global_scope(self):
        text = unit("```cpp\nstruct A {};\n```\n```cpp\nint main() {\n  return 0;\n}\n```\n")
        self.assertTrue(text.endswith('}\n#line 5 "docs/page.md"\nint main() {\n  return 0;\n}\n'))
        self.assertIn("namespace docs_snippet_1 {", text)

    def test_a_fragment_is_a_function_body_and_continued_blocks_share_its_scope(self):
        text = unit("```cpp fragment\nint x = 1;\n```\nprose\n```cpp continued\nx += 1;\n```\n"
                    "```cpp fragment\nint x = 2;\n```\n")
        self.assertIn('namespace docs_snippet_1 {\nvoid fragment() {\n#line 2 "docs/page.md"\nint x = 1;\n'
                      '#line 6 "docs/page.md"\nx += 1;\n}\n}\n', text)
        self.assertIn('namespace docs_snippet_3 {\nvoid fragment() {\n#line 9 "docs/page.md"\nint x = 2;\n}\n}\n',
                      text)

    def test_other_blocks_are_not_code_and_longer_fences_hold_shorter_ones(self):
        text = unit("```sh\necho hi\n```\n````md\n```cpp\nnot compiled\n```\n````\n~~~\nplain\n~~~\n")
        self.assertNotIn("echo", text)
        self.assertNotIn("not compiled", text)

    def test_inline_code_at_the_start_of_a_line_is_no_fence(self):
        text = unit("Write\n```` ```cpp ```` blocks.\n```cpp fragment\nint x = 1;\n```\n")
        self.assertIn('#line 4 "docs/page.md"\nint x = 1;\n', text)

    def test_the_umbrella_headers_keep_their_installed_names(self):
        text = unit("```cpp\n#include <torchless/trace.h>\n#include <torchless/torchless.h>\n```\n")
        self.assertEqual(text.count("#include <torchless/torchless.h>"), 1)
        self.assertIn("#include <torchless/trace.h>", text)


class NamesTables(unittest.TestCase):
    PAGE = ("```cpp fragment\nint x = 1;\n```\n\n| PyTorch | torchless (compiled) | note |\n|---|---|---|\n"
            "| `x + 1` | `x += 1` | |\n| `a \\| b` | `x = x \\| 2` | |\n| `torch.later` | not yet (#32) | |\n")

    def test_each_code_cell_of_the_compiled_column_is_a_statement_in_the_fragment(self):
        text = unit(self.PAGE)
        self.assertIn('int x = 1;\n#line 7 "docs/page.md"\n{ x += 1; }\n#line 8 "docs/page.md"\n{ x = x | 2; }\n}\n}\n',
                      text)
        self.assertNotIn("later", text)

    def test_a_table_without_the_column_and_a_fenced_table_are_not_code(self):
        text = unit("```cpp fragment\nint x = 1;\n```\n| a | b |\n|---|---|\n| `x` | `y` |\n"
                    "```md\n| torchless (compiled) |\n|---|\n| `z` |\n```\n")
        self.assertNotIn("{ y; }", text)
        self.assertNotIn("{ z; }", text)

    def test_a_compiled_cell_needs_a_fragment_before_it_and_one_code_span(self):
        with self.assertRaisesRegex(extract_snippets.SnippetError, "compiled table cell must follow"):
            unit("| torchless (compiled) |\n|---|\n| `x` |\n")
        with self.assertRaisesRegex(extract_snippets.SnippetError, "one `code span` or prose"):
            unit("```cpp fragment\nint x;\n```\n| torchless (compiled) |\n|---|\n| `x` and `y` |\n")


class Refusals(unittest.TestCase):
    def refused(self, page, message):
        with self.assertRaises(extract_snippets.SnippetError) as e:
            unit(page)
        self.assertIn(message, str(e.exception))

    def test_a_cpp_block_with_another_info_string(self):
        for info in ("c++", "C++", "cc", "cxx", "cpp fragmnet", "cpp fragment extra"):
            self.refused(f"x\n```{info}\nint x;\n```\n", f"docs/page.md:2: C++ block with info string '{info}'")

    def test_continued_without_a_fragment_before_it(self):
        self.refused("```cpp continued\nx += 1;\n```\n", "docs/page.md:1: a ```cpp continued block must follow")
        self.refused("```cpp\nint x;\n```\n```cpp continued\nx += 1;\n```\n", "docs/page.md:4:")

    def test_two_programs_on_a_page(self):
        self.refused("```cpp\nint main() {}\n```\n```cpp\nint main() {}\n```\n",
                     "docs/page.md:4: a second block with `int main(` (the first is at line 1)")

    def test_an_unclosed_block(self):
        self.refused("text\n```cpp\nint x;\n", "docs/page.md:2: code block never closed")


class Excerpts(unittest.TestCase):
    def errors(self, page):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "ops").mkdir()
            (root / "ops" / "k.cpp").write_text("// k\nint f() {\n  return 1;\n}\n")
            return extract_snippets.excerpt_errors(page, "docs/page.md", root)

    def test_a_block_quoting_a_file_is_not_compiled_here(self):
        text = unit("```cpp ops/k.cpp\nint f() {\n```\n```toml core/rows.toml\nx = 1\n```\n")
        self.assertNotIn("int f", text)

    def test_a_verbatim_run_of_the_file_passes(self):
        self.assertEqual(self.errors("```cpp ops/k.cpp\nint f() {\n  return 1;\n```\n"), [])

    def test_an_edited_or_missing_quote_is_named(self):
        self.assertEqual(self.errors("x\n```cpp ops/k.cpp\nint f() {\n  return 2;\n```\n"),
                         ["docs/page.md:2: the block is not a run of ops/k.cpp's lines as they are now: copy them again"])
        self.assertEqual(self.errors("```toml ops/gone.toml\nx = 1\n```\n"),
                         ["docs/page.md:1: the block quotes ops/gone.toml, which does not exist"])


class Unlisted(unittest.TestCase):
    def test_a_page_with_cpp_blocks_must_be_listed(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "docs" / "sub").mkdir(parents=True)
            (root / "README.md").write_text("```cpp\nint x;\n```\n")
            (root / "docs" / "sub" / "page.md").write_text("```cpp fragment\nint x;\n```\n")
            (root / "docs" / "prose.md").write_text("```sh\nls\n```\n")
            self.assertEqual(extract_snippets.main(["--unlisted", tmp, str(root / "README.md")]), 1)
            self.assertEqual(extract_snippets.main(["--unlisted", tmp, str(root / "README.md"),
                                                    str(root / "docs" / "sub" / "page.md")]), 0)


if __name__ == "__main__":
    unittest.main()
