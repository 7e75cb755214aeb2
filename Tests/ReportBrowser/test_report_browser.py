"""`fmplay report` of a real run, rendered in Debian's headless Chromium.

The run is generated once for the whole class: by default a subset of Examples/ (two of the three
files with evaluations, weather-tool with its tool and trip-titles) with `--samples 3` on two models,
the default SmolLM2 135M and Gemma 3 270M, with `--max-tokens 64`, so it stays within minutes on
2 cores (results land in the normal result cache, so a second run of the same binary takes seconds).
`make report-screenshot` runs the same checks over all of Examples/ and keeps the screenshot.
Then the DOM Chromium builds is compared with the run's JSON, before and after "expand all".

Run: python3 -m unittest discover -s Tests/ReportBrowser -p 'test_*.py'   (or `make test-report`)
Environment: FMPLAY (binary), FMPLAY_REPORT_SCREENSHOT (also write the screenshot there),
FMPLAY_REPORT_EXAMPLES (the files or directories to run instead of the subset, space-separated),
FMPLAY_REPORT_MAX_TOKENS (instead of 64).
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_browser as rb  # noqa: E402

EXAMPLES = os.environ.get("FMPLAY_REPORT_EXAMPLES", "Examples/weather-tool.fmplay Examples/trip-titles.fmplay").split()
MAX_TOKENS = os.environ.get("FMPLAY_REPORT_MAX_TOKENS", "64")


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.texts = tag, dict(attrs), parent, [], []

    def text(self):
        return "".join(t if isinstance(t, str) else t.text() for t in self.texts)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]


class DOM(html.parser.HTMLParser):
    VOID = {"meta", "br", "input", "link", "img", "hr", "rect", "line", "col"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.current = self.root
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        self.current.texts.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        self.current.texts.append(node)

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.texts.append(data)


class ReportInChromiumTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fmplay = rb.fmplay_binary()
        cls.models = [rb.default_model(), rb.gemma_model()]
        for model in cls.models:
            if not os.path.exists(model):
                raise RuntimeError(f"model {model} is missing: run `make setup`")
        cls.directory = tempfile.mkdtemp(prefix="fmplay-report-test-")
        cls.json_path = os.path.join(cls.directory, "run.json")
        args = [cls.fmplay, "run", "--format", "json", "--samples", "3", "--max-tokens", MAX_TOKENS]
        for model in cls.models:
            args += ["--model", model]
        run = subprocess.run(args + EXAMPLES, cwd=rb.ROOT, capture_output=True, text=True, timeout=3600)
        # 1: some block or metric failed on these small models, which the report must show.
        if run.returncode not in (0, 1):
            raise RuntimeError(f"fmplay run failed ({run.returncode}): {run.stderr[-3000:]}")
        with open(cls.json_path, "w") as f:
            f.write(run.stdout)
        cls.run_json = json.loads(run.stdout)
        cls.html_path = os.path.join(cls.directory, "report.html")
        report = subprocess.run([cls.fmplay, "report", cls.json_path, "-o", cls.html_path], cwd=rb.ROOT,
                                capture_output=True, text=True, timeout=120)
        if report.returncode != 0:
            raise RuntimeError(f"fmplay report failed ({report.returncode}): {report.stderr}")
        cls.screenshot = os.environ.get("FMPLAY_REPORT_SCREENSHOT") or os.path.join(cls.directory, "report.png")
        cls.load = rb.PageLoad(cls.html_path, screenshot=cls.screenshot)
        cls.dom = DOM(cls.load.dom).root
        # The same page after a click on "expand all" (each response's details are built on first open).
        with rb.Browser() as browser:
            browser.open(cls.html_path)
            cls.expanded_html = browser.evaluate(
                "document.getElementById('expand').click();"
                "new Promise(function(done){requestAnimationFrame(function(){setTimeout(function(){"
                "done(document.documentElement.outerHTML);},0);});})")
        cls.expanded = DOM(cls.expanded_html).root

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.directory, ignore_errors=True)

    def model_labels(self):
        return [os.path.basename(m) for m in self.models]

    def test_page_loads_without_network_or_console_errors(self):
        self.assertEqual(self.load.returncode, 0, self.load.stderr[-2000:])
        self.assertEqual(self.load.console_messages(), [])
        self.assertEqual(self.load.remote_urls(), [])
        # Nothing on the page refers to anything outside it (the CSP would block it, but it must not be there).
        for node in self.dom.walk():
            for name in ("src", "href", "action", "srcset", "poster"):
                value = node.attrs.get(name) or ""
                self.assertFalse(value.startswith(("http:", "https:", "//")), (node.tag, name, value))
        # The script ran to its end (it marks the document), and the filters it shows are there.
        html_node = self.dom.find_all("html")[0]
        self.assertIn("data-ready", html_node.attrs)
        self.assertNotIn("hidden", self.dom.find_all("form", id="filters")[0].attrs)
        self.assertGreater(os.path.getsize(self.screenshot), 10_000)

    def test_network_and_console_checks_detect_a_leaky_page(self):
        """The checks above can fail: a page that loads a remote image and logs an error is caught."""
        leaky = os.path.join(self.directory, "leaky.html")
        with open(leaky, "w") as f:
            f.write('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png">'
                    '<script>console.error("boom")</script></body></html>')
        load = rb.PageLoad(leaky)
        self.assertEqual(load.remote_urls(), ["http://example.invalid/x.png"])
        self.assertTrue(any('"boom"' in line for line in load.console_messages()), load.console_messages())

    def body_rows(self, cls):
        """The rows of a table written in boxes of rows (one <table> each; the first has the header)."""
        tables = self.dom.find_all("table", cls=cls)
        self.assertGreater(len(tables), 0, cls)
        return [tr for table in tables for body in table.find_all("tbody") for tr in body.find_all("tr")]

    def test_matrix_has_one_column_per_model(self):
        columns = self.dom.find_all("th", cls="model-col")
        self.assertEqual([c.text() for c in columns], self.model_labels())
        rows = self.body_rows("matrix")
        self.assertGreater(len(rows), 0)
        for row in rows:
            self.assertEqual(len([td for td in row.children if td.tag == "td"]), 3 + len(self.models))
        # Every box of rows has the same columns, so they line up.
        for table in self.dom.find_all("table", cls="matrix"):
            self.assertEqual(len(table.find_all("col")), 3 + len(self.models))
        # One row per result place or evaluation sample and sample run, a cell per model that ran it.
        places, seen = set(), {}
        for run in self.run_json["runs"]:
            sample = seen[run["model"]] = seen.get(run["model"], 0) + 1
            for file in run["files"]:
                for block in file["blocks"]:
                    for result in block["results"]:
                        where = (file["path"], block["displayName"], result["line"], sample)
                        if result.get("evaluation"):
                            places |= {("e",) + where + (s["index"],) for s in result["evaluation"]["samples"]}
                        else:
                            places.add(("r",) + where + (result["column"], result["iteration"]))
        self.assertEqual(len(rows), len(places))

    def expected_metric_counts(self):
        counts = {}
        for run in self.run_json["runs"]:
            for file in run["files"]:
                for block in file["blocks"]:
                    for result in block["results"]:
                        evaluation = result.get("evaluation")
                        if not evaluation:
                            continue
                        for metric in evaluation["metrics"]:
                            key = (evaluation["evaluation"], run["model"], metric["name"])
                            c = counts.setdefault(key, [0, 0, 0])
                            c[0] += metric["passed"]
                            c[1] += metric["failed"]
                            c[2] += metric["ignored"]
        return counts

    def test_counts_match_the_json(self):
        runs = self.run_json["runs"]
        self.assertEqual(len(runs), 3 * len(self.models))
        blocks = [b for r in runs for f in r["files"] for b in f["blocks"]]
        self.assertEqual(self.dom.find_all("dd", id="total-blocks")[0].text(), str(len(blocks)))
        failed = sum(b["status"] == "error" for b in blocks) + sum("error" in f for r in runs for f in r["files"])
        self.assertEqual(self.dom.find_all("dd", id="total-failed")[0].text(), str(failed))
        expected = self.expected_metric_counts()
        self.assertGreater(len(expected), 0, "the examples have evaluations")
        shown = {}
        for row in self.dom.find_all("tr"):
            if "data-evaluation" not in row.attrs:
                continue
            cells = {td.attrs.get("data-count"): td.text() for td in row.children if td.tag == "td"}
            key = (row.attrs["data-evaluation"], row.attrs["data-model"], row.attrs["data-metrics"].strip("|"))
            shown[key] = [int(cells["passed"]), int(cells["failed"]), int(cells["ignored"])]
        self.assertEqual(shown, expected)
        # Summary rows: one per block and model, its runs equal to the samples.
        summary = self.body_rows("summary")
        keys = {(f["path"], b["displayName"], r["model"]) for r in runs for f in r["files"] for b in f["blocks"]}
        self.assertEqual(len(summary), len(keys))

    def test_failing_samples_are_listed(self):
        failing = [(r["model"], s["index"]) for r in self.run_json["runs"] for f in r["files"] for b in f["blocks"]
                   for res in b["results"] if res.get("evaluation") for s in res["evaluation"]["samples"] if s["failed"]]
        self.assertGreater(len(failing), 0, "small models fail some example metric; the report must list it")
        listed = self.dom.find_all("li", cls="failing-sample")
        self.assertEqual(len(listed), len(failing))
        for item in listed:
            self.assertIn(item.attrs["data-model"], self.model_labels())
            self.assertTrue(any(a.tag == "a" and "loc" in a.classes() and ".fmplay:" in a.text() for a in item.children))

    def test_every_response_has_details(self):
        responses = [res for r in self.run_json["runs"] for f in r["files"] for b in f["blocks"] for res in b["results"]]
        # As loaded: a folded <details> per result, its body still in a <template>.
        details = self.dom.find_all("details", cls="result")
        self.assertEqual(len(details), len(responses))
        for d in details:
            self.assertEqual([c.tag for c in d.children], ["summary", "template"], d.attrs.get("id"))
        # After "expand all": every body is in the document and open, with what the JSON has.
        details = self.expanded.find_all("details", cls="result")
        self.assertEqual(len(details), len(responses))
        self.assertEqual(self.expanded.find_all("template"), [])
        for d, response in zip(details, responses):
            self.assertIn("open", d.attrs, d.attrs.get("id"))
            body = [c for c in d.children if "body" in c.classes()]
            self.assertEqual(len(body), 1, d.attrs.get("id"))
            outputs = body[0].find_all("pre", cls="output")
            self.assertEqual(outputs[0].text().strip(), response["text"].replace("\r\n", "\n").strip())
            tools = body[0].find_all("table", cls="tools")
            self.assertEqual(sum(len(t.find_all("tbody")[0].find_all("tr")) for t in tools), len(response.get("toolCalls", [])))
            samples = [tr for t in body[0].find_all("table", cls="samples") for b in t.find_all("tbody") for tr in b.find_all("tr")]
            self.assertEqual(len(samples), len(response["evaluation"]["samples"]) if response.get("evaluation") else 0)
        with_prompt = [d for d in details if any(s.text() == "prompt as the model read it" for s in d.find_all("summary"))]
        self.assertEqual(len(with_prompt), sum("renderedPrompt" in res for res in responses))

    def test_a_details_link_opens_its_response(self):
        """A matrix cell's "details" link (#rN) opens that response, built from its template."""
        link = self.dom.find_all("a", cls="more")[-1].attrs["href"]
        with rb.Browser() as browser:
            browser.open(self.html_path)
            state = browser.evaluate(
                "location.hash=%s;new Promise(function(done){setTimeout(function(){var d=document.getElementById(%s);"
                "done([d.open, !!d.querySelector(':scope>div.body>pre.output'), !!d.querySelector(':scope>template')]);},50);})"
                % (json.dumps(link), json.dumps(link[1:])))
        self.assertEqual(state, [True, True, False])


if __name__ == "__main__":
    unittest.main()
