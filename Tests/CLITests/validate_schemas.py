#!/usr/bin/env python3
"""Validates the `fmplay schema` golden files with a standard JSON Schema
validator (python-jsonschema, draft 2020-12):

- every schema in every golden is itself a valid JSON Schema;
- the instances in `<name>.instances.json` marked valid are accepted;
- every instance that breaks a guide is rejected.

Invalid instances are written as patches of the first valid instance
(`patch` replaces keys, `remove` deletes one), so each breaks one rule.
Exit status 0 when all checks pass, 1 otherwise."""

import copy
import json
import pathlib
import sys

from jsonschema import Draft202012Validator

FIXTURES = pathlib.Path(__file__).resolve().parent / "Fixtures" / "schema"


def main() -> int:
    failures = []
    checked = 0
    goldens = sorted(FIXTURES.glob("*.golden.json"))
    if not goldens:
        print(f"no golden schemas in {FIXTURES}", file=sys.stderr)
        return 1
    for golden in goldens:
        documents = json.loads(golden.read_text())
        for type_name, schema in documents.items():
            try:
                Draft202012Validator.check_schema(schema)
            except Exception as error:  # SchemaError
                failures.append(f"{golden.name}: {type_name} is not a valid JSON Schema: {error}")
            checked += 1
        name = golden.name.removesuffix(".golden.json")
        instances_path = FIXTURES / f"{name}.instances.json"
        if not instances_path.exists():
            failures.append(f"{golden.name}: missing {instances_path.name}")
            continue
        instances = json.loads(instances_path.read_text())
        schema = documents.get(instances["type"])
        if schema is None:
            failures.append(f"{golden.name}: no schema for type {instances['type']}")
            continue
        validator = Draft202012Validator(schema)
        for index, instance in enumerate(instances["valid"]):
            errors = [e.message for e in validator.iter_errors(instance)]
            if errors:
                failures.append(f"{name}: valid instance {index} rejected: {errors}")
            checked += 1
        base = instances["valid"][0]
        for case in instances["invalid"]:
            instance = copy.deepcopy(base)
            instance.update(case.get("patch", {}))
            if "remove" in case:
                del instance[case["remove"]]
            if validator.is_valid(instance):
                failures.append(f"{name}: instance breaking '{case['why']}' was accepted: {json.dumps(instance)}")
            checked += 1
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"validate_schemas: {checked} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
