"""One measure, one place: every design measure is a package under measures/ declared once in measures/registry.py,
and the report's measure sections and ``playtest validate``'s cases are read from that registry alone."""

import importlib
from pathlib import Path

import pytest

import measures.answers as answers
from measures.known import cases
from measures.protocol import Measure
from measures.registry import MEASURES, named

ROOT = Path(__file__).resolve().parent.parent


def test_every_measure_package_is_registered_once():
    packages = {p.parent.name for p in (ROOT / "measures").glob("*/__init__.py")} - {"known"}
    declared = {m.cases.split(".")[1] for m in MEASURES if m.cases}
    assert packages == declared
    assert len({m.name for m in MEASURES}) == len(MEASURES)
    for m in MEASURES:
        pkg = m.cases.rpartition(".")[0]
        assert importlib.import_module(pkg).MEASURE is m and named(m.name) is m
        assert (ROOT / m.doc).is_file(), m.doc


def test_every_case_belongs_to_a_registered_measure_and_each_has_both_kinds():
    kinds: dict[str, set] = {}
    for c in cases():
        kinds.setdefault(c.measure, set()).add(c.kind)
    assert set(kinds) == {m.name for m in MEASURES}
    assert all(k == {"planted", "null"} for k in kinds.values()), kinds


def test_a_measure_played_as_a_sweep_names_its_spec_and_answer():
    played = [m for m in MEASURES if m.command]
    assert {m.name for m in played} == {"restrict", "card-worth", "kingmaking", "tension"}
    for m in played:
        assert m.sweep.__name__ == m.cases.replace(".cases", ".sweep")
        assert isinstance(m.sweep.STEM, str) and m.answer and m.sentences and (m.section or m.page)


def test_the_report_reads_its_sections_from_the_registry(monkeypatch, tmp_path):
    """A measure added to the registry shows in the report with nothing else changed; one whose answer is None for
    the folder, or with no section, does not; ``alone`` makes the page the measures' alone."""
    said = []
    shown = Measure("shown", "a shown measure", "docs/measures.md", answer=lambda f: {"folder": str(f)},
                    sentences=lambda a: [f"read {Path(a['folder']).name}"],
                    section=lambda a, s: "<section>" + ";".join(s) + "</section>")
    absent = Measure("absent", "absent", "docs/measures.md", answer=lambda f: None, sentences=lambda a: ["no"],
                     section=lambda a, s: "<section>absent</section>")
    quiet = Measure("quiet", "quiet", "docs/measures.md", answer=lambda f: said.append(f) or {}, sentences=list)
    monkeypatch.setattr(answers, "MEASURES", (absent, shown, quiet))
    folder = tmp_path / "sweep"
    folder.mkdir()
    assert answers.measure_sections(str(folder)) == (["<section>read sweep</section>"], False,
                                                     ["a shown measure:", "  read sweep"])
    assert said == []                    # no section: its answer is not even read
    monkeypatch.setattr(answers, "MEASURES", (Measure(**{**shown.__dict__, "alone": True}),))
    assert answers.measure_sections(str(folder))[1] is True
    assert answers.measure_sections(str(tmp_path / "missing")) == ([], False, [])


@pytest.mark.parametrize("name,title", [("restrict", "restricted play"), ("card-worth", "card worth"),
                                        ("kingmaking", "kingmaking")])
def test_the_report_labels_are_the_ones_it_printed_before(name, title):
    assert named(name).title == title and named(name).section is not None
