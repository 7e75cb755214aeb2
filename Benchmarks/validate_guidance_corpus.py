#!/usr/bin/env python3
"""Validates guided-generation outputs with an independent JSON Schema validator.

Usage: validate_guidance_corpus.py DIR
DIR holds one sub-directory per schema with one or more `schema*.json` files
(the tests write their own rendering and `fmplay schema`'s, `jsonSchema()`)
and any number of `output-*.json` files (written by
GuidanceTests.RandomSamplingTests, GuidanceTests.GuidedCorpusTests and
Benchmarks/guided_corpus.py). Every output must parse as JSON, satisfy every
schema file (Draft 2020-12, which carries every guide: enum/const/pattern/
minimum/maximum/minItems/maxItems) and list object keys in declaration order
where the schema gives one (`x-order`). Prints one line per failure and a
summary; exits 1 when anything fails.
"""
import json
import pathlib
import sys

import jsonschema


def resolve(schema, root):
    """Follows local `$ref`s (`#` and `#/$defs/Name`)."""
    while isinstance(schema, dict) and "$ref" in schema:
        reference = schema["$ref"]
        target = root
        for part in reference.lstrip("#").strip("/").split("/"):
            if part:
                target = target[part]
        schema = target
    return schema


def order_errors(value, schema, validator, path="$"):
    """Objects whose keys are out of the schema's `x-order` (declaration order).
    `validator` is the root document's validator (it resolves `$ref`s)."""
    schema = resolve(schema, validator.schema)
    if not isinstance(schema, dict):
        return []
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            if validator.evolve(schema=branch).is_valid(value):
                return order_errors(value, branch, validator, path)
        return []
    errors = []
    if isinstance(value, dict):
        order = schema.get("x-order")
        if order is not None:
            positions = [order.index(key) for key in value if key in order]
            if positions != sorted(positions):
                errors.append(f"{path}: keys {list(value)} are not in declaration order {order}")
        for key, member in value.items():
            if key in schema.get("properties", {}):
                errors += order_errors(member, schema["properties"][key], validator, f"{path}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for index, element in enumerate(value):
            errors += order_errors(element, schema["items"], validator, f"{path}[{index}]")
    return errors


def validate_folder(folder):
    """(outputs, failure messages) for one schema folder."""
    validators = []
    for schema_file in sorted(folder.glob("schema*.json")):
        schema = json.loads(schema_file.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        validators.append((schema_file.name, schema, jsonschema.Draft202012Validator(schema)))
    outputs = 0
    failures = []
    for output in sorted(folder.glob("output-*.json")):
        outputs += 1
        text = output.read_text(encoding="utf-8")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            failures.append(f"FAIL {folder.name}/{output.name}: not JSON ({error}): {text!r}")
            continue
        for name, schema, validator in validators:
            errors = [error.message for error in validator.iter_errors(value)]
            errors += order_errors(value, schema, validator)
            if errors:
                failures.append(f"FAIL {folder.name}/{output.name} against {name}: {errors[0]}: {text!r}")
    return outputs, failures


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    schemas = outputs = failures = 0
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        schemas += 1
        count, messages = validate_folder(folder)
        outputs += count
        failures += len(messages)
        for message in messages:
            print(message)
    print(f"{schemas} schemas, {outputs} outputs, {failures} failures")
    return 1 if failures or outputs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
