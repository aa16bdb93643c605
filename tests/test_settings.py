"""Settings come from the environment, are typed, and are all documented in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tablelens.settings import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def test_defaults_without_environment():
    settings = Settings.from_env({})
    assert settings.data_dir == Path(".tablelens")
    assert settings.limits().max_merge_cells == 250_000


def test_environment_values_are_parsed_and_unrelated_ones_ignored():
    settings = Settings.from_env({"TABLELENS_DATA_DIR": "/srv/tl", "TABLELENS_MAX_CELLS": "42",
                                  "PATH": "/bin"})
    assert settings.data_dir == Path("/srv/tl")
    assert settings.limits().max_cells == 42


def test_bad_values_are_refused_with_the_variable_name():
    with pytest.raises(ValidationError, match="TABLELENS_MAX_CELLS"):
        Settings.from_env({"TABLELENS_MAX_CELLS": "lots"})
    with pytest.raises(ValidationError, match="TABLELENS_MAX_CELLS"):
        Settings.from_env({"TABLELENS_MAX_CELLS": "0"})


def test_every_setting_is_documented_in_the_readme():
    readme = README.read_text()
    for name, _default, description in Settings.documentation():
        assert f"`{name}`" in readme, f"{name} is missing from the README's settings table"
        assert description


def test_settings_read_the_process_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path))
    assert Settings.from_env().data_dir == tmp_path
