"""The `tablelens` command line: parses flags and calls the library; no logic of its own.

stdout carries JSON only with --json; progress and logs go to stderr. Exit codes: 0 all inputs
fine, 1 some inputs failed (listed under "errors", the others still processed), 2 usage error,
130 when Ctrl-C stopped an upload (the file being read is not stored; no file after it is read).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from time import perf_counter
from typing import Any

from agent.events import TextEvidence
from agent.llm.settings import LLMSettings
from ingest.errors import IngestError, IngestStopped
from ingest.limits import Limits
from ingest.read import SUPPORTED
from storage.records import SourceInfo
from storage.workspace import Workspace
from tablelens import __version__
from tablelens.exposure import START_WARNING, beyond_loopback
from tablelens.llm_options import llm_kwargs, with_overrides
from tablelens.settings import Settings

JSON_SCHEMA_VERSION = 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except UploadInterrupted:
        return 130  # the shells' code for a command ended by Ctrl-C
    except BrokenPipeError:
        # `tablelens inspect book.xlsx | head`: the reader has all it wanted. Python would
        # print a traceback, and another on flushing stdout at exit, which devnull spares.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablelens",
        description="Read reports (spreadsheets: .xlsx, .xls, .ods; CSV, HTML, Markdown, "
                    "documents) into faithful grids.")
    parser.add_argument("--version", action="version", version=f"tablelens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    inspect = sub.add_parser(
        "inspect", help="show the tables and passages of text read from files",
        description="Print, per table, its region, detected header rows and columns, column "
                    "and row paths, and its cells with their roles; then each document's "
                    "passages of text, with where each one is. "
                    f"Reads: {', '.join(SUPPORTED)}.")
    inspect.add_argument("paths", nargs="+", metavar="PATH", help="files to read")
    inspect.add_argument("--json", action="store_true", help="print JSON on stdout")
    inspect.add_argument("--max-cells", type=int, default=10_000, metavar="N",
                         help="print at most N cells per table (default 10000)")
    inspect.add_argument("--workspace", metavar="DIR",
                         help="keep the workspace in DIR (default: a temporary one)")
    inspect.set_defaults(func=_inspect)

    ask = sub.add_parser(
        "ask", help="answer a question about files",
        description="Read the files into a workspace and answer the question with cited cells. "
                    "Without an LLM configured the offline engine answers what it can and says "
                    "plainly what needs an LLM.")
    ask.add_argument("paths", nargs="+", metavar="PATH", help="files to read")
    ask.add_argument("--question", "-q", required=True, help="the question")
    ask.add_argument("--json", action="store_true", help="print the Answer as JSON on stdout")
    ask.add_argument("--workspace", metavar="DIR",
                     help="keep the workspace in DIR (default: a temporary one)")
    ask.add_argument("--steps", action="store_true", help="print each step as it happens")
    _llm_options(ask)
    ask.set_defaults(func=_ask)

    batch = sub.add_parser(
        "batch", help="answer a JSONL file of questions",
        description="Answer every question of a questions file (the layout of the benchmark "
                    "suites: id, table relative to the file, question, optional paragraphs) and "
                    "write one JSON line per question. One bad question never stops the run.")
    batch.add_argument("--questions", required=True, metavar="Q.jsonl")
    batch.add_argument("--out", required=True, metavar="A.jsonl")
    batch.add_argument("--workspace", metavar="DIR", help="keep the workspace in DIR")
    _llm_options(batch)
    batch.set_defaults(func=_batch)

    evaluate = sub.add_parser(
        "eval", help="answer and score benchmark suites",
        description="For each suite folder (with questions.jsonl and tables/), answer every "
                    "question and print answered %, accuracy, precision when answered (strict "
                    "and lenient), p50/p95 latency, mean, median and p95 LLM calls, and mean "
                    "prompt and completion tokens per question.")
    evaluate.add_argument("suites", nargs="+", metavar="SUITE_DIR")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluate.add_argument("--out-dir", metavar="DIR", help="keep each suite's answers here")
    evaluate.add_argument("--half", choices=["A", "B"],
                          help="only the questions of this half of the fixed split by table "
                               "(tune on A, report B; see the README's Benchmarks)")
    _llm_options(evaluate)
    evaluate.set_defaults(func=_eval)

    context = sub.add_parser(
        "context", help="print the context retrieved for a question (or a file of them)",
        description="Read the files into a workspace and print what would be sent about them "
                    "for a question: the tables, header paths and rows the question names, "
                    "found by full-text search, exact numbers and codes and embeddings, within "
                    "a token budget (the bundled model's WordPiece tokens). With --json: "
                    '{"schema_version": 1, "text", "tokens", "items"}. With --questions and '
                    '--out: one line {"id", "text", "tokens", "items"} per question of a '
                    "questions file (the benchmark layout), each over its own table; with "
                    "PATHs as well, every question is asked against all the PATHs together "
                    "(its own table is ignored).")
    context.add_argument("paths", nargs="*", metavar="PATH", help="files to read")
    context.add_argument("--question", "-q", help="the question")
    context.add_argument("--questions", metavar="Q.jsonl",
                         help="a questions file (id, table relative to the file, question)")
    context.add_argument("--out", metavar="C.jsonl", help="where --questions writes its lines")
    context.add_argument("--budget", type=int, metavar="N",
                         help="tokens the context may hold (default "
                              "TABLELENS_CONTEXT_BUDGET_TOKENS, 1500)")
    context.add_argument("--json", action="store_true", help="print JSON on stdout")
    context.add_argument("--workspace", metavar="DIR",
                         help="keep the workspace in DIR (default: a temporary one)")
    context.set_defaults(func=_context)

    reported = sub.add_parser(
        "reports", help="list the answers users reported wrong in the app",
        description="List the answers reported with \"Report a wrong answer\" in the app, "
                    "oldest first per chat: when, the chat, the question, the answer and the "
                    "note. With --json: one line per report with its whole trace (the steps "
                    "as the chat shows them), for use as evaluation material. Chat titles "
                    "come from the chat index: app.sqlite in the data directory, or the "
                    "PostgreSQL database TABLELENS_DATABASE_URL names.")
    reported.add_argument("--data-dir", metavar="DIR",
                          help="the app's data directory (default TABLELENS_DATA_DIR)")
    reported.add_argument("--json", action="store_true", help="print JSON lines on stdout")
    reported.set_defaults(func=_reports)

    run = sub.add_parser("run", help="start the web app (Streamlit) on the embedded defaults",
                         description="Start the web app. Extra arguments go to `streamlit run`.")
    run.add_argument("--port", type=int, default=8501, help="port to serve on (default 8501)")
    run.add_argument("--address", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    run.add_argument("streamlit_args", nargs=argparse.REMAINDER,
                     help="more options for streamlit run, e.g. --server.headless true")
    run.set_defaults(func=_run)
    return parser


def _llm_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--llm", metavar="PROVIDER:MODEL",
        help="the chat model for this command, overriding TABLELENS_LLM (openai:gpt-4o-mini, "
             "anthropic:claude-sonnet-4-5, ollama:qwen2.5:7b; with --llm-base-url, the name "
             "the server expects); 'offline' for the offline engine only. The environment's "
             "base URL is not used with it, nor TABLELENS_LLM_API_KEY unless the provider and "
             "address are the environment's")
    parser.add_argument(
        "--llm-base-url", metavar="URL",
        help="an OpenAI-compatible server for this command (vLLM, llama.cpp, LM Studio, "
             "Ollama's /v1), overriding TABLELENS_LLM_BASE_URL")


class UsageError(Exception):
    """A command line that cannot run as given (exit code 2)."""


def _llm(args: argparse.Namespace) -> LLMSettings:
    """The chat model of this command: the environment's, with --llm and --llm-base-url."""
    llm = with_overrides(Settings.from_env().llm_settings(), args.llm, args.llm_base_url)
    if llm.base_url and not llm.enabled:
        raise UsageError("--llm-base-url needs a model: give --llm with the name the server "
                         "expects, or set TABLELENS_LLM.")
    if llm.enabled and not llm.base_url and ":" not in (llm.model or ""):
        raise UsageError(f"--llm {llm.model}: write the model as provider:model (for example "
                         "openai:gpt-4o-mini), or give --llm-base-url for a server.")
    return llm


def _inspect(args: argparse.Namespace) -> int:
    from tablelens.inspection import passages_json, tables_json

    limits = Settings.from_env().limits()
    tables: list[dict[str, Any]] = []
    passages: list[dict[str, Any]] = []
    with _workspace(args.workspace) as workspace:
        added, errors = _add_files(workspace, args.paths, limits)
        for path, info in added:
            tables.extend(tables_json(workspace, info.sha256, path, args.max_cells))
            passages.extend(passages_json(workspace, info.sha256, path))
    if args.json:
        json.dump({"schema_version": JSON_SCHEMA_VERSION, "tables": tables,
                   "passages": passages, "errors": errors},
                  sys.stdout, ensure_ascii=False, default=str)
        sys.stdout.write("\n")
    else:
        for table in tables:
            _print_table(table)
        _print_passages(passages)
    return 1 if errors else 0


def _print_passages(passages: Sequence[dict[str, Any]]) -> None:
    """Each file's passages of text: where each is and how it starts."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for passage in passages:
        by_file.setdefault(passage["source"], []).append(passage)
    for source, items in by_file.items():
        print(f"{source} :: text: {len(items)} passage{'s' * (len(items) != 1)}")
        for p in items:
            where = ", ".join(w for w in (
                f"page {p['page']}" if p["page"] is not None else "",
                f"section {p['section']}" if p["section"] else "",
                f"paragraph {p['paragraph'] + 1}") if w)
            text = " ".join(p["text"].split())
            print(f"  {where}: {text[:97] + '...' if len(text) > 100 else text}")


def _add_files(workspace: Workspace, paths: Sequence[str], limits: Limits, *,
               prepare: bool = True
               ) -> tuple[list[tuple[str, SourceInfo]], list[dict[str, str]]]:
    """Add each file to the workspace (a new one readied for questions: `agent.prepare`,
    unless `prepare` is False); return the ones added and the ones that failed."""
    from agent.prepare import add_prepared  # the engine's imports only where it is used

    added: list[tuple[str, SourceInfo]] = []
    errors: list[dict[str, str]] = []
    stopped = threading.Event()
    with _ctrl_c_stops(stopped):
        for path in paths:
            try:
                if not Path(path).is_file():
                    raise IngestError(Path(path).name, "no such file.", "Check the path.")
                if prepare:
                    info, _ = add_prepared(workspace, path, Path(path).name, limits=limits,
                                           cancel=stopped)
                else:
                    info = workspace.add_file(path, Path(path).name, limits=limits,
                                              cancel=stopped)
                added.append((path, info))
            except IngestStopped as exc:
                print(f"error: {exc.message}", file=sys.stderr)
                raise UploadInterrupted() from exc
            except IngestError as exc:
                errors.append({"source": path, "message": exc.message})
                print(f"error: {exc.message}", file=sys.stderr)
    return added, errors


class UploadInterrupted(Exception):
    """Ctrl-C stopped an upload: the command ends (exit code 130) with nothing half-stored."""


@contextmanager
def _ctrl_c_stops(flag: threading.Event) -> Iterator[None]:
    """While files are added, the first Ctrl-C sets `flag`, so the upload stops through its
    own rollback (`IngestStopped`, within a fraction of a second) rather than by a
    KeyboardInterrupt raised at whatever line runs; a second Ctrl-C interrupts at once."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def on_ctrl_c(signum: int, frame: Any) -> None:
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set()

    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _progress(done: int, total: int, _record: dict[str, Any]) -> None:
    print(f"\r{done}/{total}", end="", file=sys.stderr)


def _embedding_progress(done: int, total: int) -> None:
    """The vector index's embedding, on stderr: a count that rewrites its line, ended when
    every text is encoded."""
    print(f"\rembedding {done}/{total} texts", end="\n" if done >= total else "",
          file=sys.stderr, flush=True)


@contextmanager
def _workspace(directory: str | None) -> Iterator[Workspace]:
    """The workspace a command works in: DIR when given, else a temporary one."""
    if directory:
        workspace = Workspace(directory)
        try:
            yield workspace
        finally:
            workspace.close()
        return
    with tempfile.TemporaryDirectory(prefix="tablelens-") as tmp:
        workspace = Workspace(tmp)
        try:
            yield workspace
        finally:
            workspace.close()


def _reports(args: argparse.Namespace) -> int:
    from storage.postgres import DatabaseUnavailable

    settings = Settings.from_env()
    data_dir = Path(args.data_dir) if args.data_dir else settings.data_dir
    root = Path(data_dir) / "workspaces"
    if not root.is_dir():
        raise UsageError(f"{data_dir} holds no chats (no workspaces folder)")
    try:
        database = settings.app_database(data_dir)  # the chat titles: app.sqlite or PostgreSQL
    except DatabaseUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        found = _print_reports(root, database.chat_index, as_json=args.json)
    finally:
        database.close()
    if not found and not args.json:
        print("No answers have been reported.")
    return 0


def _print_reports(root: Path, index: Any, *, as_json: bool) -> int:
    """Print the reports of every chat under `root`; return how many there were."""
    from tablelens.reports import reports

    found = 0
    for folder in sorted(p for p in root.iterdir() if (p / "workspace.sqlite").is_file()):
        workspace = Workspace(folder)
        try:
            for r in reports(workspace):
                found += 1
                if as_json:
                    json.dump({"schema_version": JSON_SCHEMA_VERSION, "chat": folder.name,
                               **r.to_json_dict()}, sys.stdout, ensure_ascii=False, default=str)
                    sys.stdout.write("\n")
                    continue
                answer = (r.answer or {}).get("answer") \
                    or ((r.answer or {}).get("error") or {}).get("message") or "no answer"
                chat = index.get(folder.name)
                title = chat.title if chat is not None else "an unlisted chat"
                print(f"{r.reported_at}  in \u201c{title}\u201d\n  question: {r.question}\n"
                      f"  answer: {answer}" + (f"\n  note: {r.note}" if r.note else ""))
        finally:
            workspace.close()
    return found


def _ask(args: argparse.Namespace) -> int:
    from agent.run import answer_question
    from tablelens.chat_view import ranges_text

    llm = _llm(args)

    def show(event: Any) -> None:
        if args.steps:
            print(f"[{event.node}] {event.phase}: {event.title}"
                  + (f" - {event.detail}" if event.detail else ""), file=sys.stderr)

    with _workspace(args.workspace) as workspace:
        start = perf_counter()
        _, errors = _add_files(workspace, args.paths, Settings.from_env().limits())
        ingest_ms = int((perf_counter() - start) * 1000)
        answer = answer_question(workspace, args.question, on_event=show, **llm_kwargs(llm))
    # This command's own ingest: reading and storing new files, or only hashing the bytes of
    # files the workspace already holds (`latency_ms` is the question's alone).
    answer.ingest_ms = ingest_ms
    if args.json:
        doc = {"schema_version": JSON_SCHEMA_VERSION, **answer.to_json_dict()}
        if errors:
            doc["errors"] = errors
        json.dump(doc, sys.stdout, ensure_ascii=False, default=str)
        sys.stdout.write("\n")
    elif answer.answer is not None:
        print(answer.answer)  # the answer text states its unit
        print(f"confidence: {answer.confidence_label} ({answer.confidence:.2f})")
        for group in answer.evidence_sets or []:
            where = ranges_text(group.model_dump())
            print(f"  {group.table} {group.sheet}!{where}: {group.count:,} cells")
        for item in answer.evidence:
            if isinstance(item, TextEvidence):
                print(f"  {item.source} paragraph {item.location.paragraph + 1}"
                      f"[{item.location.start}:{item.location.end}]: {item.text}")
            else:
                print(f"  {item.table} {item.sheet}!{item.ref}: {item.text}")
    else:
        print(answer.error.message if answer.error else "no answer")
    return 1 if errors else 0


def _batch(args: argparse.Namespace) -> int:
    from tablelens.evaluation.answerer import FileAnswerer
    from tablelens.evaluation.batch import run_batch

    answerer = FileAnswerer(args.workspace, limits=Settings.from_env().limits(), llm=_llm(args))
    try:
        summary = run_batch(args.questions, args.out, answerer, progress=_progress)
    except FileNotFoundError as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    finally:
        answerer.close()
    print(f"\n{summary.n} questions, {summary.answered} answered; answers in {args.out}",
          file=sys.stderr)
    for problem in summary.errors:
        print(f"error: {problem['source']}: {problem['message']}", file=sys.stderr)
    return 1 if summary.errors else 0


def _eval(args: argparse.Namespace) -> int:
    from tablelens.evaluation.answerer import FileAnswerer
    from tablelens.evaluation.report import format_report, reports_json
    from tablelens.evaluation.suites import run_eval

    answerer = FileAnswerer(limits=Settings.from_env().limits(), llm=_llm(args))
    try:
        reports = run_eval(args.suites, answerer, out_dir=args.out_dir, progress=_progress,
                           half=args.half)
    except FileNotFoundError as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    finally:
        answerer.close()
    print(file=sys.stderr)
    if args.json:
        json.dump(reports_json(reports), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(format_report(reports))
    return 0


def _context(args: argparse.Namespace) -> int:
    if (args.question is None) == (args.questions is None):
        raise UsageError("give either --question or --questions (with --out).")
    if args.questions is not None and not args.out:
        raise UsageError("--questions needs --out, the file its lines are written to.")
    if args.question is not None and not args.paths:
        raise UsageError("--question needs the files to read: tablelens context PATH... "
                         '--question "..."')
    if args.budget is not None and args.budget < 1:
        raise UsageError("--budget must be a positive number of tokens.")
    from agent.context_builder import ContextBuilder
    from tablelens.evaluation.contexts import FileContexts, run_contexts

    settings = Settings.from_env()
    budget = args.budget or settings.context_budget_tokens
    with _workspace(args.workspace) as workspace:
        _, errors = _add_files(workspace, args.paths, settings.limits(), prepare=False)
        vectors = settings.vector_index(workspace)
        vectors.progress = _embedding_progress
        builder = ContextBuilder(workspace, vectors=vectors, budget_tokens=budget)
        if args.questions is not None:
            contexts = FileContexts(workspace, builder, limits=settings.limits())
            try:
                summary = run_contexts(args.questions, args.out, contexts,
                                       pooled=bool(args.paths), progress=_progress)
            except FileNotFoundError as exc:
                print(f"\nerror: {exc}", file=sys.stderr)
                return 2
            print(f"\n{summary.n} contexts in {args.out}", file=sys.stderr)
            for problem in summary.errors:
                print(f"error: {problem['source']}: {problem['message']}", file=sys.stderr)
            return 1 if errors or summary.errors else 0
        built = builder.build(args.question)
    if args.json:
        doc = {"schema_version": JSON_SCHEMA_VERSION, **built.to_json_dict()}
        if errors:
            doc["errors"] = errors
        json.dump(doc, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(built.text)
        print(f"({built.tokens} tokens, {len(built.items)} items)", file=sys.stderr)
    return 1 if errors else 0


def _print_table(table: dict[str, Any]) -> None:
    print(f"{table['source']} :: {table['sheet']} ({table['table']}): region {table['region']}, "
          f"header rows {table['header_rows']}, header columns {table['header_cols']}, "
          f"{table['orientation']}, confidence {table['confidence']:.2f}")
    if table.get("title"):
        print(f"  title: {table['title']}")
    for note in table.get("notes", []):
        print(f"  note: {note}")
    if table["merged"]:
        print("  merged: " + ", ".join(table["merged"]))
    for warning in table.get("warnings", []):
        print(f"  warning: {warning}")
    print("  column paths: " + " | ".join(" > ".join(p) for p in table["column_paths"]))
    shown = table["row_paths"][:20]
    print("  row paths: " + " | ".join(" > ".join(p) for p in shown)
          + (" ..." if len(table["row_paths"]) > len(shown) else ""))
    for cell in table["cells"]:
        span = f" [{cell['rowspan']}x{cell['colspan']}]" if cell["rowspan"] * cell["colspan"] > 1 \
            else ""
        print(f"  {cell['ref']:>8}{span} {cell['role'] or '':<6}: {cell['text']}")
    if table.get("cells_truncated"):
        print("  ... (more cells; raise --max-cells to see them)")


def _last_address(streamlit_args: list[str]) -> str | None:
    """The `--server.address` among Streamlit's own flags (`--server.address X` or
    `--server.address=X`), the last one given; None without one."""
    found = None
    for i, arg in enumerate(streamlit_args):
        if arg == "--server.address" and i + 1 < len(streamlit_args):
            found = streamlit_args[i + 1]
        elif arg.startswith("--server.address="):
            found = arg.split("=", 1)[1]
    return found


def _run(args: argparse.Namespace) -> int:
    app = Path(__file__).resolve().parents[1] / "streamlit_app.py"
    if not app.is_file():
        print(f"error: the app file {app} is missing; run from a source checkout "
              "(pip install -e .).", file=sys.stderr)
        return 2
    extra = [a for a in args.streamlit_args if a != "--"]
    # Streamlit's own flags come after ours and win: the address it will bind is the last given.
    address = _last_address(extra) or args.address
    if beyond_loopback(address):
        print(START_WARNING.format(address=address), file=sys.stderr, flush=True)
    command = [sys.executable, "-m", "streamlit", "run", str(app),
               "--server.port", str(args.port), "--server.address", args.address,
               "--browser.gatherUsageStats", "false", *extra]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    # Streamlit reads .streamlit/config.toml from the working directory: run beside the app.
    os.chdir(app.parent)
    # Become the server rather than wait for it as a child: a signal to this process (Ctrl-C,
    # a supervisor's SIGTERM) then reaches Streamlit itself, and no orphan keeps the port.
    os.execve(sys.executable, command, env)


if __name__ == "__main__":
    raise SystemExit(main())
