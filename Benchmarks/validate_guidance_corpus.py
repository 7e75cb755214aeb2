#!/usr/bin/env python3
"""Validates guided-generation outputs with an independent JSON Schema validator.

Usage: validate_guidance_corpus.py DIR
DIR holds one sub-directory per schema with one or more `schema*.json` files
(the tests write their own rendering and `fmplay schema`'s, `jsonSchema()`)
and any number of `output-*.json` files (written by
GuidanceTests.RandomSamplingTests). Every output must parse as JSON and
satisfy every schema file (Draft 2020-12). Prints one
line per failure and a summary; exits 1 when anything fails.
"""
import json
import pathlib
import sys

import jsonschema


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    schemas = outputs = failures = 0
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        validators = []
        for schema_file in sorted(folder.glob("schema*.json")):
            schema = json.loads(schema_file.read_text())
            jsonschema.Draft202012Validator.check_schema(schema)
            validators.append((schema_file.name, jsonschema.Draft202012Validator(schema)))
        schemas += 1
        for output in sorted(folder.glob("output-*.json")):
            outputs += 1
            text = output.read_text(encoding="utf-8")
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                failures += 1
                print(f"FAIL {folder.name}/{output.name}: not JSON ({error}): {text!r}")
                continue
            for name, validator in validators:
                errors = list(validator.iter_errors(value))
                if errors:
                    failures += 1
                    print(f"FAIL {folder.name}/{output.name} against {name}: {errors[0].message}: {text!r}")
    print(f"{schemas} schemas, {outputs} outputs, {failures} failures")
    return 1 if failures or outputs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
