"""Facts of a whole table are computed once, stored in the workspace for the next process,
recomputed when the table or the rules change, and removed with their table."""

from __future__ import annotations

from pathlib import Path

from agent import table_profile
from agent.frame import load_frames
from agent.table_profile import table_fact
from storage.workspace import Workspace
from tests.conftest import SAMPLES


def _count_calls():
    calls: list[str] = []

    def compute(frame):
        calls.append(frame.table)
        return {"rows": len(frame.rows)}

    return calls, compute


def _fact(frame, compute):
    return table_fact(frame, "test_fact", compute, lambda v: v, lambda v: v)


def test_a_fact_is_computed_once_and_read_back_by_a_new_frame(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(SAMPLES / "financial.xlsx")
    calls, compute = _count_calls()
    [frame, *_] = load_frames(workspace)
    assert _fact(frame, compute) == {"rows": len(frame.rows)}
    assert _fact(frame, compute) == {"rows": len(frame.rows)}
    # A new process opens the workspace again and builds new frames.
    [again, *_] = load_frames(Workspace(tmp_path / "ws"))
    assert _fact(again, compute) == {"rows": len(frame.rows)}
    assert calls == [frame.table]


def test_other_rules_recompute_the_fact(tmp_path: Path, monkeypatch):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(SAMPLES / "financial.xlsx")
    calls, compute = _count_calls()
    _fact(load_frames(workspace)[0], compute)
    monkeypatch.setattr(table_profile, "RULES", "other-rules")
    _fact(load_frames(workspace)[0], compute)
    assert len(calls) == 2


def test_a_removed_file_takes_its_facts_with_it(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    source = workspace.add_file(SAMPLES / "financial.xlsx")
    _, compute = _count_calls()
    for frame in load_frames(workspace):
        _fact(frame, compute)
    assert workspace.db.execute("SELECT count(*) FROM table_profiles").fetchone()[0] > 0
    workspace.remove_source(source.sha256)
    assert workspace.db.execute("SELECT count(*) FROM table_profiles").fetchone()[0] == 0


def test_a_new_file_is_readied_for_questions_by_the_cli(tmp_path: Path):
    from agent.solver import DOUBTS
    from tablelens.cli import main

    assert main(["ask", str(SAMPLES / "financial.xlsx"), "--workspace", str(tmp_path / "ws"),
                 "-q", "What was the total operating expense for Q2 2024?", "--json"]) == 0
    workspace = Workspace(tmp_path / "ws")
    stored = {row[0] for row in workspace.db.execute("SELECT DISTINCT name FROM table_profiles")}
    numeric = {f"doubt:{check.__name__}:{a.key}" for frame in load_frames(workspace)
               for a in frame.data_attrs if a.measurable for check in DOUBTS}
    assert numeric  # the doubts of each numeric column (agent/column_doubts.py)
    # and its numbers' written forms (agent/column_forms.py) and counts (agent/column_facts.py)
    numeric |= {f"{fact}:{a.key}" for frame in load_frames(workspace)
                for a in frame.data_attrs if a.measurable for fact in ("forms", "counts")}
    assert stored == {"rules_profile", "total_labelled", "distinct_row_paths", "vocabulary",
                      "value_phrases", *numeric}
    tables = {row[0] for row in workspace.db.execute("SELECT table_id FROM table_profiles")}
    assert tables == set(workspace.table_ids())


def test_the_words_and_value_phrases_read_by_key_are_those_computed(tmp_path: Path):
    """A new process reads a table's vocabulary and value phrases key by key from the
    workspace; every lookup grounding makes gives what the computed fact gives."""
    from agent import grounding

    workspace = Workspace(tmp_path / "ws")
    for name in ("financial.xlsx", "hr.xlsx", "multi_sheet.xlsx"):
        workspace.add_file(SAMPLES / name)
    for computed_frame, stored_frame in zip(load_frames(workspace),
                                            load_frames(Workspace(tmp_path / "ws")), strict=True):
        grounding.table_words(computed_frame)  # computed and stored, as after an upload
        # Once stored, even the frame that computed it reads it by key (it lets go of the
        # computed fact): compare with the fact computed again.
        assert isinstance(grounding._vocabulary(computed_frame).by_root, grounding._StoredWords)
        vocab = grounding._read_vocabulary(computed_frame)
        assert isinstance(vocab.by_root, dict)
        stored = grounding._vocabulary(stored_frame)
        assert isinstance(stored.by_root, grounding._StoredWords)
        assert all(s in stored.stems for s in vocab.stems)
        assert "no-such-stem" not in stored.stems and set(stored.dotted) == vocab.dotted
        for mine, theirs in ((vocab.by_root, stored.by_root),
                             (vocab.by_initial, stored.by_initial)):
            assert all(theirs.get(k, ()) == v for k, v in mine.items())
            assert theirs.get("no-such-key", ()) == ()
        phrases = grounding._read_value_phrases(computed_frame)
        assert isinstance(phrases, grounding._ValuePhrases)
        kept = grounding._value_phrases(stored_frame)
        assert isinstance(kept, grounding._StoredPhrases)
        every_word = {w for p in phrases.candidates for w in p}
        assert kept.named_in(every_word) == phrases.named_in(every_word)
        for phrase in phrases.candidates:
            assert kept.named_in(set(phrase)) == phrases.named_in(set(phrase))
            assert kept.keys_of(phrase) == phrases.keys_of(phrase)
            assert list(kept.keys_of(phrase)) == list(phrases.keys_of(phrase))  # column order
            assert kept.text_of(phrase) == phrases.text_of(phrase)
            assert kept.listing(phrase) == phrases.listing(phrase)
        assert kept.keys_of(("no", "such", "phrase")) is None
