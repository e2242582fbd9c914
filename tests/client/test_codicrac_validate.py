"""`codicrac validate`: the server's checks of an upload, run offline against what the new
endpoint /api/phases/<id>/check/ gives (document names, word forms, sentence ids), which
never holds a gold annotation; files are matched to datasets by name or by documents."""

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from client.main import main
from competition.definition import editor
from competition.services.pages import page_save


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


@pytest.fixture
def keyed(live_server, make_world):
    world = make_world()
    for slug in ("light", "ami"):  # stored by the editor: their document names recorded
        sc = world.phase.subcorpora.get(slug=slug)
        editor.subcorpus_save(
            phase=world.phase,
            subcorpus=sc,
            name=sc.name,
            key=SimpleUploadedFile(f"{slug}.conllua", world.key_text(slug).encode()),
        )
    return world


def login(monkeypatch, live_server, user="alice", password="alice-pw-123!"):
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    assert main(["login", "--server", live_server.url, "--username", user, "--password-stdin"]) == 0


def test_the_check_endpoint_never_holds_key_content(keyed, client):
    world = keyed
    client.force_login(world.alice)
    response = client.get(f"/api/phases/{world.phase.pk}/check/")
    assert response.status_code == 200
    body = response.json()
    text = json.dumps(body)
    for secret in ("EntityID", "MarkableID", "markable_", "keys/", ".conllua"):
        assert secret not in text, secret
    for sc in world.phase.subcorpora.filter(available=True):
        assert sc.sha256 and sc.sha256 not in text
    light = next(d for d in body["subcorpora"] if d["slug"] == "light")
    assert [d["name"] for d in light["documents"]] == ["light_1", "light_2"]
    assert light["documents"][0]["tokens"] == [
        "the",
        "knight",
        "saw",
        "a",
        "dragon",
        "he",
        "fought",
        "it",
    ]
    assert set(light) == {"slug", "name", "file_name", "format", "documents"}
    # Not before the phase starts, not without the terms, not without logging in.
    client.logout()
    assert client.get(f"/api/phases/{world.phase.pk}/check/").status_code in (401, 403)
    client.force_login(world.alice)
    page_save(competition=world.competition, kind="terms", body="Terms.")
    refused = client.get(f"/api/phases/{world.phase.pk}/check/")
    assert refused.status_code == 403 and refused.json()["code"] == "check_facts_hidden"
    page_save(competition=world.competition, kind="terms", body="")
    world.phase.start = world.phase.start + timedelta(days=30)
    world.phase.save()
    assert client.get(f"/api/phases/{world.phase.pk}/check/").status_code == 403


def test_validate_offline_finds_what_the_upload_would(
    keyed, live_server, config, monkeypatch, capsys, tmp_path
):
    world = keyed
    login(monkeypatch, live_server)
    capsys.readouterr()
    phase = str(world.phase.pk)
    good = tmp_path / "LIGHT.conllua"
    good.write_text(world.response_text("light"), encoding="utf-8")
    nameless = tmp_path / "output-2.txt"  # AMI's documents, a name that says nothing
    nameless.write_text(world.response_text("ami"), encoding="utf-8")
    assert main(["validate", "--phase", phase, str(good), str(nameless)]) == 0
    out = capsys.readouterr().out
    assert "LIGHT.conllua: OK for LIGHT, 2 documents" in out
    assert "output-2.txt: OK for AMI (matched by its documents to AMI)" in out

    broken = tmp_path / "light_run.conllua"
    broken.write_text(world.response_text("light").replace("dragon", "wyvern"), encoding="utf-8")
    wrong = tmp_path / "AMI.conllua"  # named AMI, holds LIGHT's documents
    wrong.write_text(world.response_text("light"), encoding="utf-8")
    assert main(["validate", "--phase", phase, str(broken), str(wrong)]) == 1
    out = capsys.readouterr().out
    assert "light_run.conllua: 1 problem for LIGHT" in out
    assert "'wyvern' but the key has 'dragon'" in out and "(token_mismatch)" in out
    assert "AMI.conllua: this looks like LIGHT's file" in out
    assert str(tmp_path) not in out  # files named as the user gave them

    # The same broken file, uploaded: the server's check refuses the run saying the same.
    assert main(["submit", "--phase", phase, "--wait", str(broken), str(nameless)]) == 1
    assert "'wyvern' but the key has 'dragon'" in capsys.readouterr().out


def test_a_corefud_file_with_renamed_documents_is_known_by_its_sentences(
    live_server, db, config, monkeypatch, capsys, tmp_path
):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from competition import services
    from competition.models import Competition, Phase, SubCorpus, Task

    root = Path(__file__).resolve().parents[2] / "fixtures" / "corefud"
    competition = Competition.objects.create(
        slug="crac-test", title="CRAC test", published_at=timezone.now()
    )
    task = Task.objects.create(
        competition=competition,
        slug="coref",
        kind="corefud",
        title="Coreference",
        procedure="crac-2025",
        primary_metric="conll",
    )
    phase = Phase.objects.create(
        task=task,
        slug="dev",
        kind="development",
        title="Dev",
        start=timezone.now() - timedelta(days=1),
        missing="zero",
    )
    gum = SubCorpus.objects.create(phase=phase, name="en_gum", slug="en_gum", order=0)
    editor.subcorpus_save(
        phase=phase,
        subcorpus=gum,
        name="en_gum",
        language="English",
        key=SimpleUploadedFile(
            "en_gum.conllu", (root / "key" / "en_gum-corefud-test.conllu").read_bytes()
        ),
    )
    get_user_model().objects.create_user("alice", password="alice-pw-123!")
    alice = get_user_model().objects.get(username="alice")
    services.team_create(competition=competition, name="Alpha", user=alice)
    login(monkeypatch, live_server)
    capsys.readouterr()
    text = (root / "string-match" / "en_gum-corefud-test.conllu").read_text(encoding="utf-8")
    renamed = tmp_path / "system-output.conllu"
    renamed.write_text(text.replace("# newdoc id = GUM_", "# newdoc id = doc_"), encoding="utf-8")
    assert main(["validate", "--phase", str(phase.pk), str(renamed)]) == 1
    out = capsys.readouterr().out
    assert "for en_gum (matched by its documents to en_gum)" in out
    assert "(missing_documents)" in out and "(extra_documents)" in out


COREFUD_RUN = (
    "# global.Entity = eid-etype-head-other\n# newdoc id = light_1\n# sent_id = 1\n"
    "1\tthe\t_\t_\t_\t_\t0\troot\t_\tEntity=(1--1-)\n"
)


def test_validate_names_the_other_format_in_one_line_and_counts_in_words(
    keyed, live_server, config, monkeypatch, capsys, tmp_path
):
    """A CorefUD file for a CONLL-UA phase: one line naming both formats, not a reader's
    column count or a scorer option; "1 problem", "1 dataset"."""
    world = keyed
    login(monkeypatch, live_server)
    capsys.readouterr()
    run = tmp_path / "LIGHT.conllu"
    run.write_text(COREFUD_RUN, encoding="utf-8")
    assert main(["validate", "--phase", str(world.phase.pk), str(run)]) == 1
    out = capsys.readouterr().out
    assert "LIGHT.conllu: 1 problem for LIGHT\n" in out
    assert (
        "  LIGHT.conllu: this is a CorefUD CoNLL-U file; the phase expects CONLL-UA "
        "(wrong_format)\n" in out
    )
    assert "No file for 1 dataset (AMI)" in out
    assert "columns" not in out and "-f corefud" not in out


def test_validate_says_what_it_needs():
    from client.main import build_parser, plural

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    validate = commands.choices["validate"]
    text = validate.format_help()
    assert "offline" not in text
    assert "codicrac login" in text and "team approved" in " ".join(text.split())
    assert (plural(1, "document"), plural(2, "document")) == ("1 document", "2 documents")
