"""A stored spec of a results folder no signature vouches for names no learned model's file outside that folder,
however its bot specs spell ``model=``: the check reads each bot spec as the bot parser does (sim.kit.bots), so every
spelling the parser takes is checked, and the file is refused before it is opened."""

from pathlib import Path

import pytest

from cluster.spec import SpecError, parse_spec

SPEC = {"name": "stored", "game": "paws", "rules": "v4", "seed": 1, "games_per_cell": 4, "batch_size": 4,
        "grid": {"players": [2]}}


@pytest.fixture
def places(tmp_path):
    """(the results folder, a model file outside it)."""
    folder = tmp_path / "sweep"
    folder.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text('{"SECRET": 1}')
    return folder, secret


# every spelling of model= the bot parser reads as the model: spaces and tabs around the key, the '=' and the
# value, a search bot's model, a bots string of several seats, a digest pinned after '@'
SPELLINGS = ["learned: model = {f}", "learned:model ={f}", "learned:\tmodel\t=\t{f}", " learned:model= {f} ",
             "mcts:iterations=8: model = {f}", "heuristic, learned: model = {f}", "learned:model = {f}@0123456789ab",
             "learned:forbid=none:  model  =  {f}  "]


@pytest.mark.parametrize("bots", SPELLINGS)
def test_a_model_file_outside_the_folder_is_refused_however_model_is_spelled(places, opened, bots):
    folder, secret = places
    raw = {**SPEC, "setup": {"bots": bots.format(f=secret)}}
    opened.clear()
    with pytest.raises(SpecError, match="outside the results folder") as e:
        parse_spec(raw, source="manifest spec", within=folder)
    assert len(str(e.value).splitlines()) == 1 and "SECRET" not in str(e.value)
    assert not [p for p in opened if Path(p).name == secret.name]


def test_a_bots_list_entry_is_read_whole_as_the_parser_reads_it(places, opened):
    """A list gives one spec per seat, not split at ','; its model= runs to the next ':' whatever it holds, so a
    name followed by ',' and a path is a path."""
    folder, secret = places
    raw = {**SPEC, "setup": {"bots": ["heuristic", f"learned:model=paws-2,/..{secret}"]}}
    with pytest.raises(SpecError, match="outside the results folder"):
        parse_spec(raw, source="manifest spec", within=folder)


@pytest.mark.parametrize("where", ["kingmaking", "sweep"])
def test_a_kingmaking_oracle_file_outside_the_folder_is_refused(places, opened, where):
    folder, secret = places
    raw = {**SPEC, "tables": ["games", "kingmaking"], "grid": {"players": [4]}}
    raw.update({"kingmaking": {"oracle": str(secret)}} if where == "kingmaking" else {"oracle": f"{secret}@0123ab"})
    opened.clear()
    with pytest.raises(SpecError, match="oracle=.* is outside the results folder"):
        parse_spec(raw, source="manifest spec", within=folder)
    assert not [p for p in opened if Path(p).name == secret.name]
    parse_spec({**raw, "kingmaking": {"oracle": "paws-2"}, "oracle": "paws-2"}, source="manifest spec",
               within=folder)


def test_the_same_spellings_of_a_shipped_model_and_of_a_file_inside_the_folder_pass(places):
    folder, _ = places
    spec = parse_spec({**SPEC, "setup": {"bots": "learned: model = paws-2"}}, source="manifest spec", within=folder)
    assert spec.cells[0].match.setup.bots[0].startswith("learned:model=paws-2@")
    inside = folder / "m.json"
    inside.write_text("{}")                      # not a model: the check passes it, the model reader refuses it
    with pytest.raises(SpecError) as e:
        parse_spec({**SPEC, "setup": {"bots": f"learned : model = {inside}"}}, source="manifest spec", within=folder)
    assert "outside the results folder" not in str(e.value)


def test_text_that_is_no_bot_spec_is_left_to_the_parser(places):
    """A spec whose model= the parser would refuse before opening anything (a field given twice, a field without
    '=') is refused by the parser, in one line."""
    folder, secret = places
    raw = {**SPEC, "setup": {"bots": f"learned:model=paws-2:model = {secret}"}}
    with pytest.raises(SpecError, match="given twice") as e:
        parse_spec(raw, source="manifest spec", within=folder)
    assert len(str(e.value).splitlines()) == 1
