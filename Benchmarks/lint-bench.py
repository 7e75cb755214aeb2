#!/usr/bin/env python3
"""Benchmark: lint a generated 10,000-line prompt file with a release build
of fmplay. Target: under 200 ms. Reports the in-process analysis time
(`fmplay lint --timing`, parse + model + every check) and the wall-clock
time of the whole command (process start, reading, analysis, printing),
as the median of several runs.

Usage: Benchmarks/lint-bench.py [--fmplay PATH] [--lines N] [--runs N]"""

import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

BLOCK = '''
@Generable(description: "Plan number {i}")
struct Plan{i} {{
    @Guide(description: "A catchy name", .pattern(/[A-Z][a-z]+( [A-Z][a-z]+)*/))
    var name: String
    @Guide(.range(1...14))
    var days: Int
    @Guide(.anyOf(["relaxed", "busy", "mixed"]))
    var pace: String
    @Guide(.count(2...5), .element(.range(1...5)))
    var ratings: [Int]
    var stops: [Stop{i}]
    var backup: Plan{i}?
    @Guide(description: "A brief summary")
    var summary: String
}}

@Generable
enum Stop{i} {{
    case museum(name: String)
    case park
    case restaurant(String, stars: Int)
}}

struct Lookup{i}: Tool {{
    let name = "lookup{i}"
    let description = "Looks up facts about stop {i}"
    @Generable
    struct Arguments {{
        @Guide(description: "The stop to look up")
        var stop: String
    }}
    func call(arguments: Arguments) async throws -> String {{
        if arguments.stop == "park" {{
            return "Open from 6 to 22."
        }}
        return "No data for \\(arguments.stop)."
    }}
}}

let cities{i} = ["Tokyo", "Kyoto", "Osaka"]

#Playground("plan {i}") {{
    let session = LanguageModelSession(tools: [Lookup{i}()], instructions: "Plan short trips.")
    for city in cities{i} {{
        let response = try await session.respond(to: "Plan a trip to \\(city).", generating: Plan{i}.self)
        print(response.content.name)
    }}
}}
'''


def generate(lines: int) -> str:
    out = ["import FoundationModels", "import Playgrounds", ""]
    i = 0
    while len(out) < lines:
        out.extend(BLOCK.format(i=i).splitlines())
        i += 1
    return "\n".join(out[:lines]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fmplay", default=str(ROOT / ".build" / "release" / "fmplay"))
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not pathlib.Path(args.fmplay).exists():
        print(f"{args.fmplay} not found; run `swift build -c release` first", file=sys.stderr)
        return 2
    text = generate(args.lines)
    # Cut at a block boundary would be nicer, but a truncated tail is realistic
    # half-typed code too; the linter must handle it either way.
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "bench.fmplay"
        path.write_text(text)
        analysis, wall = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = subprocess.run([args.fmplay, "lint", "--timing", str(path)], capture_output=True, text=True)
            wall.append((time.perf_counter() - start) * 1000)
            match = re.search(r"analysed (\d+) lines in ([\d.]+) ms", result.stderr)
            if not match or result.returncode not in (0, 1):
                print(f"unexpected fmplay output (status {result.returncode}):\n{result.stderr}", file=sys.stderr)
                return 2
            analysis.append(float(match.group(2)))
        lines = int(match.group(1))
    analysis_ms = statistics.median(analysis)
    wall_ms = statistics.median(wall)
    print(f"lint {lines} lines: analysis {analysis_ms:.1f} ms, whole command {wall_ms:.1f} ms (median of {args.runs}; target < 200 ms)")
    return 0 if wall_ms < 200 else 1


if __name__ == "__main__":
    sys.exit(main())
