"""Holding a JSON answer to its OpenAPI schema key by key, both ways, for
tests/config/test_payload_schema.py.

Every object in the answer, however deep (nested objects, list items, the values of a map),
must have no key its schema lacks and every key its schema requires; a null only where the
schema allows one; a JSON type the schema's, and a value of its enum if it has one. ``Keys``
also gathers, per schema object, the keys answers showed, so a documented key no answer ever
had (an optional one) is found too.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

Schema = dict[str, Any]

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


class Keys:
    """The keys seen per schema object, and the problems found."""

    def __init__(self, components: dict[str, Schema]) -> None:
        self.components = components
        self.documented: dict[str, set[str]] = {}
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.problems: list[str] = []

    def check(self, value: Any, schema: Schema, where: str) -> None:
        """Hold ``value`` (an answer, or a part of one at ``where``) to ``schema``."""
        self.problems += self._mismatches(value, schema, where)

    def never_shown(self) -> list[str]:
        """Documented keys that no answer checked had."""
        return [
            f"{name}: no answer had {sorted(keys - self.seen[name])}, which the schema documents"
            for name, keys in sorted(self.documented.items())
            if keys - self.seen[name]
        ]

    def _mismatches(self, value: Any, schema: Schema, where: str) -> list[str]:
        schema, nullable, name = self._resolve(schema)
        if value is None:
            return [] if nullable else [f"{where}: null, which the schema does not allow"]
        if "oneOf" in schema:
            tries = [self._mismatches(value, one, where) for one in schema["oneOf"]]
            return [] if [] in tries else min(tries, key=len)
        kind = schema.get("type")
        if kind and not _is_json_type(value, kind):
            return [f"{where}: {type(value).__name__}, where the schema says {kind}"]
        if "enum" in schema and value not in schema["enum"]:
            return [f"{where}: {value!r}, which is not one of the schema's {schema['enum']}"]
        if isinstance(value, list) and "items" in schema:
            return [
                p
                for i, v in enumerate(value)
                for p in self._mismatches(v, schema["items"], f"{where}[{i}]")
            ]
        if isinstance(value, dict) and "properties" in schema:
            return self._object(value, schema, name or where, where)
        extra = schema.get("additionalProperties")
        if isinstance(value, dict) and isinstance(extra, dict):
            return [p for k, v in value.items() for p in self._mismatches(v, extra, f"{where}.{k}")]
        return []

    def _object(self, value: dict[str, Any], schema: Schema, name: str, where: str) -> list[str]:
        properties = schema["properties"]
        self.documented[name] = set(properties)
        self.seen[name] |= value.keys() & properties.keys()
        problems = [
            f"{where} ({name}): the answer has {key!r}, which the schema lacks"
            for key in sorted(value.keys() - properties.keys())
        ]
        problems += [
            f"{where} ({name}): the schema requires {key!r}, which the answer lacks"
            for key in sorted(set(schema.get("required", ())) - value.keys())
        ]
        for key in value.keys() & properties.keys():
            problems += self._mismatches(value[key], properties[key], f"{where}.{key}")
        return problems

    def _resolve(self, schema: Schema) -> tuple[Schema, bool, str | None]:
        """The schema behind ``$ref`` and a lone ``allOf`` (drf-spectacular's nullable
        reference), whether it allows null, and the component's name if it is one."""
        nullable, name = False, None
        while True:
            nullable = nullable or bool(schema.get("nullable")) or schema.get("enum") == [None]
            if "$ref" in schema:
                name = schema["$ref"].rsplit("/", 1)[-1]
                schema = self.components[name]
            elif len(schema.get("allOf", ())) == 1:
                schema = schema["allOf"][0]
            else:
                return schema, nullable or _null_branch(schema, self), name


def _null_branch(schema: Schema, keys: Keys) -> bool:
    """A ``oneOf`` with a ``NullEnum`` branch: how drf-spectacular makes an enum nullable."""
    return any(keys._resolve(one)[1] for one in schema.get("oneOf", ()))


def _is_json_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    return isinstance(value, JSON_TYPES.get(kind, (object,)))
