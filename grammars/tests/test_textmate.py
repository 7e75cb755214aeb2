"""Golden-scope tests for grammars/fmplay.tmLanguage.json.

Every fixture in grammars/tests/fixtures/ and every example in Examples/ is tokenized and
compared with its golden listing in grammars/tests/golden/. A missing golden is written and
the test fails once; `UPDATE_GOLDEN=1` rewrites them. Targeted checks pin the scopes that
matter for fmplay (so a golden cannot silently enshrine a regression there).

Run: python3 -m unittest discover -s grammars/tests -p 'test_*.py'
"""
from __future__ import annotations

import glob
import json
import os
import re
import unittest

import tmscopes

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "golden")


def sources():
    fixtures = sorted(glob.glob(os.path.join(HERE, "fixtures", "*.fmplay")))
    examples = sorted(glob.glob(os.path.join(ROOT, "Examples", "**", "*.fmplay"), recursive=True))
    return [(os.path.relpath(path, ROOT), path) for path in fixtures + examples]


class GoldenScopes(unittest.TestCase):
    compiler = None

    @classmethod
    def setUpClass(cls):
        cls.compiler = tmscopes.load_compiler()

    def test_sources_exist(self):
        self.assertTrue(sources(), "no .fmplay fixtures found")

    def test_golden_scopes(self):
        update = os.environ.get("UPDATE_GOLDEN") == "1"
        for relative, path in sources():
            with self.subTest(file=relative):
                with open(path, encoding="utf-8") as handle:
                    actual = tmscopes.render(self.compiler, handle.read())
                golden = os.path.join(GOLDEN, relative.replace(os.sep, "__") + ".scopes")
                if update or not os.path.exists(golden):
                    os.makedirs(GOLDEN, exist_ok=True)
                    with open(golden, "w", encoding="utf-8") as handle:
                        handle.write(actual)
                    if not update:
                        self.fail(f"{relative}: golden {os.path.relpath(golden, ROOT)} was missing and "
                                  "has been written; review it and commit it")
                    continue
                with open(golden, encoding="utf-8") as handle:
                    expected = handle.read()
                self.assertEqual(expected, actual,
                                 f"{relative}: scopes differ from {os.path.relpath(golden, ROOT)}; "
                                 "if the grammar change is intended, rerun with UPDATE_GOLDEN=1")

    def test_no_unclosed_region_at_end_of_file(self):
        # A region left open at the end (unbalanced begin/end) bleeds into everything after it.
        for relative, path in sources():
            with self.subTest(file=relative):
                with open(path, encoding="utf-8") as handle:
                    text = handle.read() + "\nlet sentinel = 1\n"
                self.assertEqual(("source.fmplay",), tmscopes.scopes_of(self.compiler, text, "sentinel"))


class TargetedScopes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compiler = tmscopes.load_compiler()

    def scopes(self, text, needle, occurrence=1):
        return tmscopes.scopes_of(self.compiler, text, needle, occurrence)

    def assertScope(self, text, needle, scope, occurrence=1):
        scopes = self.scopes(text, needle, occurrence)
        self.assertIn(scope, scopes, f"{needle!r} in {text!r}: {scopes}")

    def test_playground_block(self):
        text = '#Playground("demo") {\n    let x = 1\n}\nlet y = 2\n'
        self.assertScope(text, "Playground", "keyword.other.playground.fmplay")
        self.assertScope(text, "demo", "string.quoted.double.playground-name.fmplay")
        self.assertScope(text, "x", "meta.playground.body.fmplay")
        self.assertNotIn("meta.playground.fmplay", self.scopes(text, "y"))

    def test_playground_nested_braces_do_not_close_it(self):
        text = "#Playground {\n  for a in b {\n    if c { d() }\n  }\n  let inside = 1\n}\n"
        self.assertScope(text, "inside", "meta.playground.body.fmplay")

    def test_generable_and_guide(self):
        text = '@Generable\nstruct A {\n  @Guide(description: "d", .range(1...3))\n  var n: Int\n}\n'
        self.assertScope(text, "Generable", "storage.type.attribute.generable.fmplay")
        self.assertScope(text, "Guide", "storage.type.attribute.guide.fmplay")
        self.assertScope(text, "range", "support.function.guide.fmplay")
        self.assertScope(text, "...", "keyword.operator.range.fmplay")

    def test_every_guide_function(self):
        for guide in ["anyOf", "constant", "pattern", "minimum", "maximum", "range", "count",
                      "minimumCount", "maximumCount", "element"]:
            text = f"@Guide(.{guide}(1))\nvar v: Int\n"
            self.assertScope(text, guide, "support.function.guide.fmplay")

    def test_count_property_is_not_a_guide(self):
        self.assertNotIn("support.function.guide.fmplay", self.scopes("let n = items.count\n", "count"))

    def test_pattern_regex_literal(self):
        text = "@Guide(.pattern(/[0-9]{3}-x/))\n"
        self.assertScope(text, "/", "punctuation.definition.string.begin.regexp.fmplay")
        self.assertScope(text, "-x", "string.regexp.fmplay")
        text = "let r = #/a+b/#\n"
        self.assertScope(text, "#/", "string.regexp.extended.fmplay")

    def test_tool_members(self):
        text = ("struct Weather: Tool {\n  let name = \"weather\"\n  let description = \"d\"\n"
                "  @Generable struct Arguments { var city: String }\n"
                "  func call(arguments: Arguments) async throws -> String { \"sunny\" }\n}\n")
        self.assertScope(text, "Weather", "entity.name.type.tool.fmplay")
        self.assertScope(text, "Tool", "entity.other.inherited-class.tool.fmplay")
        self.assertScope(text, "name", "variable.other.member.tool.fmplay")
        self.assertScope(text, "description", "variable.other.member.tool.fmplay")
        self.assertScope(text, "Arguments", "entity.name.type.tool.arguments.fmplay")
        self.assertScope(text, "call", "entity.name.function.tool.call.fmplay")
        self.assertScope(text, "arguments", "variable.parameter.tool.arguments.fmplay")

    def test_non_tool_struct_has_no_tool_scopes(self):
        text = "struct Place {\n  let name = \"x\"\n}\n"
        self.assertNotIn("variable.other.member.tool.fmplay", self.scopes(text, "name"))

    def test_prompt_strings(self):
        text = 'let r = try await s.respond(to: "Hi \\(who)!", generating: T.self)\n'
        self.assertScope(text, "Hi", "string.quoted.double.prompt.fmplay")
        self.assertScope(text, "who", "meta.embedded.line.interpolation.fmplay")
        self.assertScope(text, "respond", "support.function.session.fmplay")
        text = 'let s = LanguageModelSession(instructions: "Be brief")\n'
        self.assertScope(text, "Be brief", "string.quoted.double.prompt.fmplay")
        text = 'let p = Prompt {\n  "Write a poem"\n}\n'
        self.assertScope(text, "Write a poem", "string.quoted.double.prompt.fmplay")
        text = 'print("not a prompt")\n'
        self.assertNotIn("string.quoted.double.prompt.fmplay", self.scopes(text, "not a prompt"))

    def test_multiline_prompt_with_interpolation(self):
        text = 'let r = try await s.respond(to: """\n  Line \\(n + 1) "q"\n  """)\nlet after = 1\n'
        self.assertScope(text, "Line", "string.quoted.triple.prompt.fmplay")
        self.assertScope(text, "n", "meta.embedded.line.interpolation.fmplay")
        self.assertScope(text, '"q"', "string.quoted.triple.prompt.fmplay")
        self.assertNotIn("string.quoted.triple.prompt.fmplay", self.scopes(text, "after"))

    def test_line_continuation_in_multiline_string(self):
        text = 'let s = """\n  one \\\n  two\n  """\nlet after = 1\n'
        self.assertScope(text, "\\", "constant.character.escape.newline.fmplay")
        self.assertNotIn("invalid.illegal.escape.fmplay", self.scopes(text, "\\"))
        self.assertScope(text, "two", "string.quoted.triple.fmplay")

    def test_raw_string(self):
        text = 'let s = #"a \\n "b" \\#(x)"#\nlet after = 1\n'
        self.assertScope(text, "\\n", "string.quoted.double.raw.fmplay")
        self.assertNotIn("constant.character.escape.fmplay", self.scopes(text, "\\n"))
        self.assertScope(text, "x", "meta.embedded.line.interpolation.fmplay")
        self.assertNotIn("string.quoted.double.raw.fmplay", self.scopes(text, "after"))

    def test_numbers_keywords_comments(self):
        text = "let a = 0.75 // note\nvar b = 0xFF\n/* c */ if a > 1e3 { return }\n"
        self.assertScope(text, "0.75", "constant.numeric.float.fmplay")
        self.assertScope(text, "0xFF", "constant.numeric.hex.fmplay")
        self.assertScope(text, "1e3", "constant.numeric.float.fmplay")
        self.assertScope(text, "note", "comment.line.double-slash.fmplay")
        self.assertScope(text, "c", "comment.block.fmplay")
        self.assertScope(text, "if", "keyword.control.fmplay")
        self.assertScope(text, "return", "keyword.control.fmplay")
        self.assertScope(text, "let", "storage.type.fmplay")

    def test_member_named_like_keyword(self):
        self.assertNotIn("keyword.control.fmplay",
                         self.scopes("let m = SystemLanguageModel.default\n", "default"))


class GrammarFile(unittest.TestCase):
    def test_every_include_resolves(self):
        with open(tmscopes.GRAMMAR, encoding="utf-8") as handle:
            grammar = json.load(handle)
        self.assertEqual("source.fmplay", grammar["scopeName"])
        repository = grammar["repository"]
        includes = re.findall(r'"include":\s*"([^"]+)"', json.dumps(grammar))
        for include in includes:
            if include in ("$self", "$base"):
                continue
            self.assertTrue(include.startswith("#"), f"external include {include}: the grammar must stay self-contained")
            self.assertIn(include[1:], repository, f"include {include} has no repository entry")

    def test_every_repository_entry_is_used(self):
        with open(tmscopes.GRAMMAR, encoding="utf-8") as handle:
            grammar = json.load(handle)
        text = json.dumps(grammar)
        for key in grammar["repository"]:
            self.assertIn(f'"#{key}"', text, f"repository entry {key} is never included")


if __name__ == "__main__":
    unittest.main()
