"""A Qdrant index of a workspace's vectors, rebuilt from workspace.sqlite.

workspace.sqlite is the source of truth (`storage/vectors.py`); Qdrant is an index of it
(CONTRACTS.md). By default the index is in memory (`QdrantClient(":memory:")`), built in the
process that first searches a workspace; with `QDRANT_URL` (and `QDRANT_API_KEY`) it is a Qdrant
server, through the same code: the first sync in a process recreates the workspace's
collection from the stored vectors, later ones replace only the points of tables added,
re-read (a header correction gives a table a new version) or removed since. One collection per
workspace.

Nothing here imports qdrant-client or the model before the first `sync` or `search`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storage.chunks import read_chunks
from storage.embedder import Embedder, Progress, _no_progress, shared_embedder
from storage.vectors import (
    VALUES_PER_COLUMN,
    Kind,
    VectorItem,
    chunk_items,
    ensure_vectors,
    vector_items,
)
from storage.views import read_catalog

if TYPE_CHECKING:
    from storage.workspace import Workspace

UPSERT_BATCH = 512
PHRASES_KEPT = 64
PATH_KINDS: tuple[Kind, ...] = ("column_path", "row_path")


@dataclass(frozen=True, slots=True)
class VectorHit:
    """One point near a query: what it is, where it is, and its cosine similarity."""

    kind: Kind
    table: str
    text: str
    path: tuple[str, ...]
    ref: str | None
    source: str
    """The file's name."""
    score: float

    @property
    def path_text(self) -> str:
        return " > ".join(self.path)


@dataclass
class SyncReport:
    """What one sync did: tables (re)indexed and removed, texts embedded, points written."""

    tables_indexed: int = 0
    tables_removed: int = 0
    embedded: int = 0
    points: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)


def collection_name(workspace: Workspace) -> str:
    """One collection per workspace: its id and a digest of its folder (two data folders may
    hold the same id)."""
    digest = hashlib.sha256(workspace.location.encode()).hexdigest()[:12]
    return f"tablelens-{workspace.id}-{digest}"


class VectorIndex:
    """Nearest header paths, values and tables of a workspace to a phrase."""

    def __init__(self, workspace: Workspace, *, embedder: Embedder | None = None,
                 url: str | None = None, api_key: str | None = None,
                 values_per_column: int = VALUES_PER_COLUMN, client: Any = None,
                 progress: Progress = _no_progress) -> None:
        self.workspace = workspace
        self.embedder = embedder or shared_embedder()
        self.url = url or None
        self.api_key = api_key or None
        self.values_per_column = values_per_column
        self.collection = collection_name(workspace)
        self._client = client
        self._indexed: dict[str, tuple[int, str]] | None = None
        """Table id -> (version, file hash) of what the collection holds; None before the
        first sync of this process."""
        self.progress = progress
        """Told of the embedding of each sync a search starts (texts encoded, texts to
        encode): the CLI prints it on stderr."""
        self._lock = threading.Lock()
        self._phrases: OrderedDict[str, list[float]] = OrderedDict()
        self._described: dict[str, list[float]] = {}
        """Each table's description vector, as the collection holds it (`described`)."""

    @property
    def client(self) -> Any:
        if self._client is None:
            from qdrant_client import QdrantClient

            self._client = (QdrantClient(url=self.url, api_key=self.api_key) if self.url
                            else QdrantClient(":memory:"))
        return self._client

    def sync(self, progress: Progress | None = None) -> SyncReport:
        """Bring the collection in step with the workspace's catalog; embed what is new,
        telling `progress` (by default the index's own) after each batch."""
        with self._lock:
            return self._sync(progress or self.progress)

    def _sync(self, progress: Progress) -> SyncReport:
        start = time.perf_counter()
        report = SyncReport()
        db = self.workspace.db
        current = {row[0]: (row[1], row[2]) for row in
                   db.execute("SELECT id, version, source FROM catalog")}
        # A document's text chunks are points too, keyed by chunk id (never re-read: 0).
        chunks_by_source: dict[str, list] = {}
        for stored in read_chunks(db):
            current[stored.id] = (0, stored.source)
            chunks_by_source.setdefault(stored.source, []).append(stored)
        if self._indexed is None:
            t0 = time.perf_counter()
            dimension = self.embedder.dimension()  # loads the model: torch's import, once
            report.timings["model_load_s"] = time.perf_counter() - t0
            self._recreate(dimension)
            self._indexed = {}
        stale = [tid for tid, known in self._indexed.items() if current.get(tid) != known]
        fresh = [tid for tid, now in current.items() if self._indexed.get(tid) != now]
        if stale:
            self._delete_tables(stale)
            for tid in stale:
                del self._indexed[tid]
        report.tables_removed = len(set(stale) - set(fresh))
        if fresh:
            t0 = time.perf_counter()
            # The items of every table of a touched file, not only the fresh tables': the
            # file's links to its vectors are replaced whole (a re-read sheet must not unlink
            # the vectors of the file's other sheets).
            touched = {current[tid][1] for tid in fresh}
            items: list[VectorItem] = []
            for tid, (_, source) in current.items():
                if source in touched:
                    for table in read_catalog(db, tid):
                        items.extend(vector_items(db, table, self.values_per_column))
            for source in touched:
                items.extend(chunk_items(chunks_by_source.get(source, [])))
            report.timings["items_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            embedded = ensure_vectors(db, self.embedder, items, progress)
            report.timings["embed_s"] = time.perf_counter() - t0
            report.embedded = embedded.embedded
            t0 = time.perf_counter()
            wanted = set(fresh)
            points = [item for item in items if item.table in wanted]
            self._upsert(points, embedded.vectors)
            report.timings["upsert_s"] = time.perf_counter() - t0
            report.points = len(points)
            for tid in fresh:
                self._indexed[tid] = current[tid]
        report.tables_indexed = len(fresh)
        report.seconds = time.perf_counter() - start
        return report

    def _recreate(self, dimension: int) -> None:
        from qdrant_client import models

        if self.client.collection_exists(self.collection):
            self.client.delete_collection(self.collection)
        self.client.create_collection(
            self.collection, vectors_config=models.VectorParams(
                size=dimension, distance=models.Distance.COSINE))

    def _delete_tables(self, table_ids: Sequence[str]) -> None:
        from qdrant_client import models

        for tid in table_ids:
            self._described.pop(tid, None)

        self.client.delete(self.collection, points_selector=models.FilterSelector(
            filter=models.Filter(must=[models.FieldCondition(
                key="table", match=models.MatchAny(any=list(table_ids)))])))

    def _upsert(self, items: Sequence[VectorItem], vectors: dict[str, list[float]]) -> None:
        from qdrant_client import models

        model = self.embedder.name
        for item in items:
            if item.kind == "table":
                self._described[item.table] = vectors[item.key(model)]
        for start in range(0, len(items), UPSERT_BATCH):
            batch = items[start:start + UPSERT_BATCH]
            self.client.upsert(self.collection, points=[
                models.PointStruct(id=item.point_id(), vector=vectors[item.key(model)],
                                   payload=item.payload()) for item in batch])

    def count(self, *, source: str | None = None, table: str | None = None) -> int:
        """Points held (of one file's sha256, or one table), without syncing."""
        from qdrant_client import models

        must = [models.FieldCondition(key=key, match=models.MatchValue(value=value))
                for key, value in (("sha256", source), ("table", table)) if value is not None]
        return self.client.count(self.collection, count_filter=models.Filter(must=must),
                                 exact=True).count

    def _phrase_vector(self, phrase: str) -> list[float]:
        """A phrase's vector, kept for the last PHRASES_KEPT phrases: choosing a question's
        tables and then its rows searches with the same question several times."""
        with self._lock:
            if phrase in self._phrases:
                self._phrases.move_to_end(phrase)
                return self._phrases[phrase]
        [vector] = self.embedder.encode([phrase])
        with self._lock:
            self._phrases[phrase] = vector
            while len(self._phrases) > PHRASES_KEPT:
                self._phrases.popitem(last=False)
        return vector

    def described(self, phrase: str, tables: Sequence[str] | None = None) -> dict[str, float]:
        """The cosine of each table's description (of `tables` when given) to a phrase, after
        syncing: the table points searched alone. Computed here, not by a filtered query,
        which Qdrant's local mode answers by checking every point's payload (70 ms on 9,000
        points, against 8 ms unfiltered)."""
        import numpy as np

        self.sync()
        vector = np.asarray(self._phrase_vector(phrase), dtype=np.float32)
        wanted = set(tables) if tables is not None else None
        with self._lock:
            described = {t: v for t, v in self._described.items()
                         if wanted is None or t in wanted}
        if not described:
            return {}
        matrix = np.asarray(list(described.values()), dtype=np.float32)
        # Stored vectors are normalised, and so is the phrase's: the dot product is the cosine.
        return dict(zip(described, (matrix @ vector).tolist(), strict=True))

    def search(self, phrase: str, *, limit: int = 5, kinds: Sequence[Kind] | None = None,
               tables: Sequence[str] | None = None) -> list[VectorHit]:
        """The points nearest to a phrase, best first (after syncing with the workspace)."""
        from qdrant_client import models

        self.sync()
        vector = self._phrase_vector(phrase)
        must = []
        if kinds:
            must.append(models.FieldCondition(key="kind", match=models.MatchAny(any=list(kinds))))
        if tables:
            must.append(models.FieldCondition(key="table",
                                              match=models.MatchAny(any=list(tables))))
        points = self.client.query_points(
            self.collection, query=vector, limit=limit, with_payload=True,
            query_filter=models.Filter(must=must) if must else None).points
        return [VectorHit(p.payload["kind"], p.payload["table"], p.payload["text"],
                          tuple(p.payload["path"]), p.payload["ref"], p.payload["source"],
                          float(p.score)) for p in points]
