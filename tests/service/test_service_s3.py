"""A service whose results root is on object storage (``playtest serve --results s3://BUCKET/PREFIX``), against a
real S3-compatible server on loopback (moto's): a sweep job writes its parts to the bucket, and the run's page, its
progress, report, verdict card, SQL console and downloads read them there; the parts are the bytes ``playtest
sweep`` writes on a local disk; a compare, a report and a replay read the run in the bucket (the replay the same page
as ``playtest play --from`` of the local sweep); deleting the run removes its objects; a bad --results is one line
before start."""

from __future__ import annotations

import io

import httpx
import pyarrow.parquet as pq
import pytest
from part_bytes import blanked, parts
from service_helpers import TINY, Live, csrf_of, make_users, wait_state
from typer.testing import CliRunner

from cli.main import app as cli_app
from service.runner import job_layout

pytestmark = [pytest.mark.slow, pytest.mark.service]


def blanked_part(data: bytes) -> bytes:
    """A part's bytes with the code version in its metadata blanked (tests/part_bytes.py)."""
    return blanked(data, pq.read_metadata(io.BytesIO(data)).metadata)


def test_a_sweep_job_on_object_storage_is_played_shown_queried_and_deleted(tmp_path, s3_server):
    s3_server.bucket("designs")
    res = CliRunner().invoke(cli_app, ["sweep", str(_spec(tmp_path)), "--out", str(tmp_path / "local"), "--workers",
                                       "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    with Live(tmp_path / "root", results=s3_server.uri("designs", "team")) as live:
        users = make_users(live.app)
        with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"},
                          timeout=60) as api:
            job = api.post("/api/runs", json={"spec": TINY, "title": "on the bucket"}).json()["id"]
            done = wait_state(api, job, ("done", "failed"), timeout=180)
            assert done["state"] == "done", done
            assert done["progress"]["games_done"] == 400 and done["verdict"]
            row = live.app.state.catalog.job(job)
            assert row["results"] == s3_server.uri("designs", "team")
            assert not (live.app.state.root / "runs" / job).exists()           # nothing of it on the local disk
            objects = s3_server.keys("designs", f"team/runs/{job}/")
            ours = {k.removeprefix(f"team/runs/{job}/"): blanked_part(v) for k, v in objects.items()
                    if k.endswith(".parquet")}
            assert ours and ours == parts(tmp_path / "local")
            assert f"team/runs/{job}/manifest.json" in objects

            page = users["read"].page(live.app)
            run = page.get(f"/runs/{job}")
            assert run.status_code == 200 and "2 of 2 parts" in run.text
            report = page.get(f"/runs/{job}/report")
            assert report.status_code == 200 and "Paws in Peril" in report.text
            assert "testing" not in report.text                               # no credentials anywhere
            sql = page.post(f"/runs/{job}/sql", data={"csrf": users["read"].csrf,
                                                      "sql": "SELECT count(*) AS n FROM games"})
            assert sql.status_code == 200 and "<td>400</td>" in sql.text, sql.text[-2000:]
            got = users["read"].api(live.app).post(f"/api/runs/{job}/sql", json={"sql": "SELECT 1 FROM games"})
            assert got.status_code == 200 and len(got.json()["rows"]) == 400
            csv = page.get(f"/runs/{job}/download/games.csv")
            assert csv.status_code == 200 and csv.text.count("\n") == 401
            pq_file = page.get(f"/runs/{job}/download/games.parquet")
            assert pq_file.status_code == 200 and pq.read_table(io.BytesIO(pq_file.content)).num_rows == 400

            for kind, fields, page_name in (("compare", {"a": job, "by": "players"}, "compare"),
                                            ("report", {"run": job, "target": "4-12"}, "report")):
                other = api.post("/api/runs", json={"kind": kind, **fields})          # over the run in the bucket
                assert other.status_code == 201, other.text
                ended = wait_state(api, other.json()["id"], ("done", "failed"), timeout=180)
                assert ended["state"] == "done", ended
                shown = page.get(f"/runs/{ended['id']}/report" if page_name == "report" else
                                 f"/runs/{ended['id']}/pages/{page_name}")
                assert shown.status_code == 200 and "testing" not in shown.text and str(tmp_path) not in shown.text
            assert "verdict" in api.get(f"/api/runs/{other.json()['id']}").json()
            assert "id='replay'" in run.text                        # a game of the run, drawn from the bucket's parts
            drawn = page.get(f"/runs/{job}/replay/game", params={"cell": "c001", "index": "7"})
            assert drawn.status_code == 200, drawn.text[-1500:]
            res = CliRunner().invoke(cli_app, ["play", "--from", str(tmp_path / "local"), "--cell", "c001",
                                               "--game-index", "7", "--html", str(tmp_path / "local-7.html")])
            assert res.exit_code == 0, res.output
            assert drawn.text == (tmp_path / "local-7.html").read_text()     # the same page as the disk's sweep

            owner = users["edit"].page(live.app)
            gone = owner.post(f"/runs/{job}/delete", data={"csrf": csrf_of(owner.get(f"/runs/{job}").text)},
                              follow_redirects=False)
            assert gone.status_code == 303, gone.text
            assert s3_server.keys("designs", f"team/runs/{job}/") == {}
            assert api.get(f"/api/runs/{job}").status_code == 404
            assert job_layout(live.app.state.root, row)["out"].startswith("s3://designs/team/runs/")


def _spec(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def test_serve_refuses_a_bad_results_root_in_one_line(tmp_path, s3_server):
    for results, said in (("/tmp/x", "expected s3://BUCKET/PREFIX"),
                          (s3_server.uri("no-such-bucket", "p"), "no bucket 'no-such-bucket'"),
                          ("s3://b/../c", "--results")):
        res = CliRunner().invoke(cli_app, ["serve", "--root", str(tmp_path / "r"), "--results", results])
        assert res.exit_code == 2, res.output
        assert said in res.output and res.output.count("\n") == 1, res.output
