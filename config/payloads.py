"""One typed definition per REST answer: a ``TypedDict`` that the selector building the answer
returns, so mypy checks every key and value it puts in, and from which ``serializer_for`` builds
the DRF serializer that drf-spectacular documents (and that a view renders through, where it
renders through one). The answer and the schema therefore come from the same lines and cannot
drift apart; tests/config/test_payload_schema.py holds every documented answer to its schema.

drf-spectacular reads a ``TypedDict`` by itself (``plumbing.resolve_type_hint``), but inline
only: no named components and no descriptions of keys. A serializer built from it keeps what the
schema had when serializers were written by hand: named components (``TableOutput``, named after
the ``TypedDict``), their descriptions (the ``TypedDict``'s docstring, which clients read as
Markdown), enums and key notes.

A key's type gives its field: ``int``, ``float``, ``str``, ``bool``, ``datetime``; ``X | None``
may be null; ``list[X]`` and ``dict[str, X]`` hold ``X``; another ``TypedDict`` nests its own
serializer; ``Literal[...]`` and an ``Enum`` are enums; ``Any`` and ``dict[str, Any]`` are
free-form JSON. A ``NotRequired`` key is optional in the schema. ``Annotated[T, Doc(...)]`` adds
what the type alone cannot say: a description, an enum's choices, or a narrower field.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from rest_framework import serializers

SCALARS: dict[object, type[serializers.Field]] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    str: serializers.CharField,
    datetime: serializers.DateTimeField,
}


@dataclass(frozen=True, slots=True)
class Doc:
    """What the schema says of a key beyond its type (in ``Annotated[T, Doc(...)]``).

    ``field`` replaces the field the type would give, e.g. ``DateTimeField`` for a ``str``
    already in ISO form, or a model serializer; ``choices`` make a ``str`` an enum.
    """

    help_text: str | None = None
    field: type[serializers.Field] | None = None
    choices: Any = None


#: A time the selector has already written as ISO-8601 UTC text (``games.selectors.utc_text``).
IsoTime = Annotated[str, Doc(field=serializers.DateTimeField)]


@functools.cache
def serializer_for(payload: type) -> type[serializers.Serializer]:
    """The serializer of the ``TypedDict`` ``payload``, named after it (the schema's component
    is ``payload.__name__``), built once.

    :raises TypeError: ``payload`` is not a ``TypedDict``, or a key's type has no field.
    """
    if not is_typeddict(payload):
        raise TypeError(f"{payload!r} is not a TypedDict")
    hints = get_type_hints(payload, include_extras=True)
    total = payload.__total__  # type: ignore[attr-defined]
    fields = {
        name: field_for(hint, required=_required(hint, total)) for name, hint in hints.items()
    }
    attrs = {"__doc__": payload.__doc__, "__module__": payload.__module__, **fields}
    # drf-spectacular drops the "Serializer" suffix from a component's name.
    return type(f"{payload.__name__}Serializer", (serializers.Serializer,), attrs)


def field_for(hint: Any, *, required: bool = True) -> serializers.Field:
    """The serializer field of one key's type.

    :raises TypeError: a type with no field (a union of two types, a set, a class of our own).
    """
    hint, nullable, doc = _unwrap(hint)
    options: dict[str, Any] = {}
    if nullable:
        options["allow_null"] = True
    if doc.help_text:
        options["help_text"] = doc.help_text
    if not required:
        options["required"] = False
    if doc.field is not None:
        return doc.field(**options)
    if doc.choices is not None:
        return serializers.ChoiceField(choices=doc.choices, **options)
    return _typed_field(hint, options)


def _typed_field(hint: Any, options: dict[str, Any]) -> serializers.Field:
    origin, args = get_origin(hint), get_args(hint)
    if is_typeddict(hint):
        return serializer_for(hint)(**options)
    if origin is list and is_typeddict(args[0]):
        return serializer_for(args[0])(many=True, **options)
    if origin is list:
        return serializers.ListField(child=field_for(args[0]), **options)
    if hint is Any or (origin is dict and args[1] is Any):
        return serializers.JSONField(**options)
    if origin is dict:
        return serializers.DictField(child=field_for(args[1]), **options)
    if origin is Literal:
        return serializers.ChoiceField(choices=list(args), **options)
    if isinstance(hint, type) and issubclass(hint, Enum):
        # A model's choices keep their labels (the schema describes each value with it).
        choices = getattr(hint, "choices", None) or [member.value for member in hint]
        return serializers.ChoiceField(choices=choices, **options)
    if hint in SCALARS:
        return SCALARS[hint](**options)
    raise TypeError(f"no serializer field for {hint!r}")


def _required(hint: Any, total: bool) -> bool:
    # Read from the hint, not ``__required_keys__``: under ``from __future__ import annotations``
    # a TypedDict cannot see ``NotRequired`` in its string annotations when it is made.
    origin = get_origin(hint)
    return origin is Required or (origin is not NotRequired and total)


def _unwrap(hint: Any) -> tuple[Any, bool, Doc]:
    """The bare type under ``NotRequired``, ``Annotated`` and ``| None``, whether it may be
    null, and its ``Doc`` (an outer note wins over an inner one, as for ``IsoTime | None``)."""
    nullable, docs = False, []
    while True:
        origin, args = get_origin(hint), get_args(hint)
        if origin in (NotRequired, Required):
            hint = args[0]
        elif origin is Annotated:
            docs += [note for note in hint.__metadata__ if isinstance(note, Doc)]
            hint = hint.__origin__
        elif origin in (Union, types.UnionType) and type(None) in args:
            others = [arg for arg in args if arg is not type(None)]
            if len(others) != 1:
                raise TypeError(f"no serializer field for {hint!r}")
            nullable, hint = True, others[0]
        else:
            return hint, nullable, _merged(docs)


def _merged(docs: list[Doc]) -> Doc:
    def first(name: str) -> Any:
        return next((getattr(d, name) for d in docs if getattr(d, name) is not None), None)

    return Doc(help_text=first("help_text"), field=first("field"), choices=first("choices"))
