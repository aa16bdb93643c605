"""The one typed settings object, built from environment variables.

Every field has an environment name (its alias) and a description; the README's settings table
lists them all (a test checks it). Build it with `Settings.from_env(os.environ)`; tests pass a dict.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ingest.limits import Limits

_DEFAULTS = Limits()


class Settings(BaseModel):
    """Tablelens settings. Field aliases are the environment variable names."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    data_dir: Path = Field(
        Path(".tablelens"), alias="TABLELENS_DATA_DIR",
        description="Where workspaces (uploaded files, workspace.sqlite) and app.sqlite live.")
    max_file_bytes: int = Field(
        _DEFAULTS.max_file_bytes, alias="TABLELENS_MAX_FILE_BYTES", gt=0,
        description="Largest uploaded file accepted, in bytes (not CSV; see the CSV limit).")
    max_csv_bytes: int = Field(
        _DEFAULTS.max_csv_bytes, alias="TABLELENS_MAX_CSV_BYTES", gt=0,
        description="Largest CSV/TSV file accepted, in bytes (CSV is streamed, not loaded).")
    max_unzipped_bytes: int = Field(
        _DEFAULTS.max_unzipped_bytes, alias="TABLELENS_MAX_UNZIPPED_BYTES", gt=0,
        description="Bytes an .xlsx may expand to when decompressed (guards against zip bombs).")
    max_cells: int = Field(
        _DEFAULTS.max_cells, alias="TABLELENS_MAX_CELLS", gt=0,
        description="Non-empty cells accepted per file, across all its sheets or tables.")
    max_merge_cells: int = Field(
        _DEFAULTS.max_merge_cells, alias="TABLELENS_MAX_MERGE_CELLS", gt=0,
        description="Largest area (rows x columns) of one merged range.")
    max_html_depth: int = Field(
        _DEFAULTS.max_html_depth, alias="TABLELENS_MAX_HTML_DEPTH", gt=0,
        description="How deeply HTML elements may nest before a page is refused.")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from an environment mapping (default: the process environment)."""
        env = os.environ if env is None else env
        names = {f.alias for f in cls.model_fields.values()}
        return cls.model_validate({k: v for k, v in env.items() if k in names})

    def limits(self) -> Limits:
        """Return the reading limits these settings describe."""
        return Limits(
            max_file_bytes=self.max_file_bytes,
            max_csv_bytes=self.max_csv_bytes,
            max_unzipped_bytes=self.max_unzipped_bytes,
            max_cells=self.max_cells,
            max_merge_cells=self.max_merge_cells,
            max_html_depth=self.max_html_depth,
        )

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """Return (environment name, default, description) for every field."""
        rows = []
        for field in cls.model_fields.values():
            rows.append((str(field.alias), str(field.default), str(field.description)))
        return rows
