"""The email settings form: a checkbox per kind of notice (checked: also by email)."""

from __future__ import annotations

from typing import Any

from django import forms

from notifications.models import Kind


class EmailSettingsForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind in Kind:
            self.fields[kind.value] = forms.BooleanField(required=False, label=kind.label)
