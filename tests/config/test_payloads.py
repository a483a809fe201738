"""config/payloads.py: the serializer built from an answer's TypedDict, field by field."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest
from rest_framework import serializers

from config.payloads import Doc, IsoTime, field_for, serializer_for


class InnerOutput(TypedDict):
    """A nested answer."""

    n: int


class Phase(StrEnum):
    DRAW = "draw"
    PLAY = "play"


class SampleOutput(TypedDict):
    count: int
    ratio: float
    name: str
    on: bool
    at: datetime
    said_at: IsoTime
    gone: str | None
    inner: InnerOutput
    maybe_inner: InnerOutput | None
    inners: list[InnerOutput]
    names: list[str]
    banks: dict[str, float]
    free: dict[str, Any]
    anything: Any
    side: Literal["winners", "losers"]
    phase: Phase
    status: Annotated[str, Doc("Where it stands", choices=[("a", "A"), ("b", "B")])]
    slug: Annotated[str, Doc(field=serializers.SlugField)]
    ends: Annotated[IsoTime | None, Doc("When it ends")]
    extra: NotRequired[Annotated[str, Doc("Only sometimes")]]


def fields() -> dict[str, serializers.Field]:
    return dict(serializer_for(SampleOutput)().fields)


def test_each_type_gives_its_field() -> None:
    f = fields()
    kinds = {name: type(field) for name, field in f.items()}
    assert kinds == {
        "count": serializers.IntegerField,
        "ratio": serializers.FloatField,
        "name": serializers.CharField,
        "on": serializers.BooleanField,
        "at": serializers.DateTimeField,
        "said_at": serializers.DateTimeField,
        "gone": serializers.CharField,
        "inner": serializer_for(InnerOutput),
        "maybe_inner": serializer_for(InnerOutput),
        "inners": serializers.ListSerializer,
        "names": serializers.ListField,
        "banks": serializers.DictField,
        "free": serializers.JSONField,
        "anything": serializers.JSONField,
        "side": serializers.ChoiceField,
        "phase": serializers.ChoiceField,
        "status": serializers.ChoiceField,
        "slug": serializers.SlugField,
        "ends": serializers.DateTimeField,
        "extra": serializers.CharField,
    }
    assert type(f["inners"].child) is serializer_for(InnerOutput)
    assert type(f["names"].child) is serializers.CharField
    assert type(f["banks"].child) is serializers.FloatField
    assert list(f["side"].choices) == ["winners", "losers"]
    assert list(f["phase"].choices) == ["draw", "play"]
    assert list(f["status"].choices) == ["a", "b"]


def test_null_required_and_notes_follow_the_type() -> None:
    f = fields()
    assert [n for n, field in f.items() if field.allow_null] == ["gone", "maybe_inner", "ends"]
    assert [n for n, field in f.items() if not field.required] == ["extra"]
    notes = {n: field.help_text for n, field in f.items() if field.help_text}
    assert notes == {"status": "Where it stands", "ends": "When it ends", "extra": "Only sometimes"}


def test_the_serializer_is_named_and_described_after_the_typeddict() -> None:
    made = serializer_for(InnerOutput)
    assert made is serializer_for(InnerOutput)  # one class, so one schema component
    assert made.__name__ == "InnerOutputSerializer"  # drf-spectacular names it InnerOutput
    assert made.__doc__ == "A nested answer."


def test_it_renders_as_a_hand_written_serializer_would() -> None:
    at = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)
    data = serializer_for(InnerOutput)({"n": 3, "not_declared": 1}).data
    assert data == {"n": 3}
    assert serializers.DateTimeField().to_representation(at) == "2026-11-02T12:00:00Z"


def test_types_without_a_field_are_refused() -> None:
    with pytest.raises(TypeError, match="no serializer field"):
        field_for(int | str)
    with pytest.raises(TypeError, match="no serializer field"):
        field_for(set[int])
    with pytest.raises(TypeError, match="not a TypedDict"):
        serializer_for(dict)
