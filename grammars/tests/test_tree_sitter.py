"""Validate grammars/tree-sitter/*.scm against the real tree-sitter-swift grammar (PyPI
`tree-sitter-swift`, through the `tree-sitter` Python binding): every node, field and
predicate must compile, and the fmplay captures must land on the right text of the fixtures.
"""
from __future__ import annotations

import glob
import os
import unittest

try:
    import tree_sitter
    import tree_sitter_swift
except ImportError as error:  # environment problem: say how to fix it
    raise SystemExit(f"{error}: run `make setup` or `python3 -m pip install tree-sitter tree-sitter-swift`") from error

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(os.path.dirname(HERE), "tree-sitter")
# One Language for the whole process: freeing and re-creating it corrupts memory in
# py-tree-sitter 0.26.
SWIFT = tree_sitter.Language(tree_sitter_swift.language())
FIXTURES = sorted(glob.glob(os.path.join(HERE, "fixtures", "*.fmplay")))
EXAMPLES = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(HERE)), "Examples", "**", "*.fmplay"),
                            recursive=True))


def captures(query_name: str, source: bytes) -> dict[str, set[str]]:
    language = SWIFT
    with open(os.path.join(QUERIES, query_name), encoding="utf-8") as handle:
        query = tree_sitter.Query(language, handle.read())
    tree = tree_sitter.Parser(language).parse(source)
    found = tree_sitter.QueryCursor(query).captures(tree.root_node)
    return {name: {source[n.start_byte:n.end_byte].decode() for n in nodes} for name, nodes in found.items()}


class TreeSitterQueries(unittest.TestCase):
    source = b"".join(open(path, "rb").read() for path in FIXTURES)

    def test_fixtures_parse_without_errors(self):
        language = SWIFT
        for path in FIXTURES + EXAMPLES:
            with self.subTest(file=os.path.basename(path)):
                with open(path, "rb") as handle:
                    tree = tree_sitter.Parser(language).parse(handle.read())
                self.assertFalse(tree.root_node.has_error, f"{path}: tree-sitter-swift reports a syntax error")

    def test_highlights(self):
        got = captures("highlights.scm", self.source)
        self.assertEqual({"#", "Playground"}, got["function.macro"])
        self.assertEqual({"@", "Generable", "Guide"}, got["attribute"])
        guides = {"anyOf", "constant", "pattern", "minimum", "maximum", "range", "count",
                  "minimumCount", "maximumCount", "element"}
        self.assertTrue(guides <= got["function.builtin"], got["function.builtin"])
        self.assertTrue({"respond", "streamResponse", "call"} <= got["function.builtin"])
        self.assertNotIn("print", got["function.builtin"])
        self.assertEqual({"name", "description"}, got["variable.builtin"])
        self.assertEqual({"Arguments"}, got["type.builtin"])
        self.assertEqual({"arguments"}, got["variable.parameter.builtin"])
        prompts = got["string.special"]
        self.assertIn('"You are a helpful travel agent."', prompts)
        self.assertIn('"Answer in one sentence."', prompts)
        self.assertTrue(any(p.startswith('"""') for p in prompts), prompts)
        self.assertTrue(any(p.startswith('#"Raw') for p in prompts), prompts)
        self.assertNotIn('"ok"', prompts)
        self.assertNotIn('"findContacts"', prompts)

    def test_injections(self):
        got = captures("injections.scm", self.source)
        content = got["injection.content"]
        self.assertIn("/[A-Z][a-z]+/", content)
        self.assertTrue(any("Plan a" in piece for piece in content), content)
        self.assertTrue(any(piece.startswith("/// A trip") for piece in content), content)

    def test_queries_inherit_swift(self):
        for name in ("highlights.scm", "injections.scm"):
            with open(os.path.join(QUERIES, name), encoding="utf-8") as handle:
                self.assertEqual("; inherits: swift", handle.readline().strip(), name)


if __name__ == "__main__":
    unittest.main()
