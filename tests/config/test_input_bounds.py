"""Every field a client fills in has an upper bound at the door: each whole number a maximum
(10**20 would overflow a column), each text a maximum length (a 2 MB announcement once made
every event page 2 MB). The REST inputs' serializers and the pages' forms are found by walking
the apps, so a new one is held to it too. JSON fields are left to their services, which check
the value's shape and range themselves (``games.services.table_create``, say)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from django import forms
from rest_framework import serializers

MODULES = [
    "accounts.serializers",
    "accounts.forms",
    "chat.apis",
    "games.apis",
    "games.forms",
    "lobby.apis",
    "notifications.forms",
    "tournaments.apis_results",
    "tournaments.forms",
    "tournaments.serializers",
]
# Passwords are hashed, never stored or shown; Django's own password fields have no length.
PASSWORDS = {"password", "password1", "password2"}


def declared(kind: type) -> Iterator[type]:
    for name in MODULES:
        for _, found in inspect.getmembers(importlib.import_module(name), inspect.isclass):
            if issubclass(found, kind) and found.__module__ == name:
                yield found


def page_forms() -> list[type]:
    """The forms, leaving out a model form's mixin that names no model of its own."""
    return [
        c
        for c in declared(forms.BaseForm)
        if not issubclass(c, forms.ModelForm) or c._meta.model is not None
    ]


def inputs() -> list[type]:
    return [c for c in declared(serializers.Serializer) if c.__name__.endswith("Input")]


def serializer_fields(field: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, field
    child = getattr(field, "child", None)
    if child is not None:
        yield from serializer_fields(child, f"{path}[]")


def unbounded_serializer_fields(serializer: type) -> list[str]:
    out = []
    for name, top in serializer().fields.items():
        for path, field in serializer_fields(top, name):
            if isinstance(field, serializers.IntegerField) and field.max_value is None:
                out.append(f"{path}: no max_value")
            if isinstance(field, serializers.CharField) and field.max_length is None:
                out.append(f"{path}: no max_length")
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("serializer", inputs(), ids=lambda c: c.__name__)
def test_every_rest_input_field_is_bounded(serializer: type) -> None:
    assert unbounded_serializer_fields(serializer) == []


@pytest.mark.django_db
@pytest.mark.parametrize("form", page_forms(), ids=lambda c: c.__name__)
def test_every_page_form_field_is_bounded(form: type) -> None:
    unbounded = []
    for name, field in form().fields.items():
        if name in PASSWORDS:
            continue
        if isinstance(field, forms.IntegerField) and field.max_value is None:
            unbounded.append(f"{name}: no max_value")
        if isinstance(field, forms.CharField) and field.max_length is None:
            unbounded.append(f"{name}: no max_length")
    assert unbounded == []


def test_the_walk_finds_the_inputs_and_forms() -> None:
    names = {c.__name__ for c in [*inputs(), *page_forms()]}
    assert {"EventInput", "AnnouncementInput", "TableForm", "EventForm"} <= names
