"""The page “注意力实验台 / Attention playground”: the limits its note quotes are the playground's own."""

from __future__ import annotations

import pytest

from qkv_site.pages import playground
from qkv_site.project import Project


def test_a_preset_within_the_manual_limit_stops_the_note(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playground, "MAX_TOKENS", 12)  # the note says the preset goes beyond the manual limit
    with pytest.raises(ValueError, match="goes beyond the manual limit of 12"):
        playground.values.__wrapped__(project)


def test_a_script_without_its_limit_stops_the_note() -> None:
    assert playground.max_cell("const LIMIT = 1000; // cells\n") == 1000
    with pytest.raises(ValueError, match="const LIMIT"):
        playground.max_cell("const LIMITS = {};")
