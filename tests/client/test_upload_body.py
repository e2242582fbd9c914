"""The command line's streamed upload body: a multipart form Django reads whole, with its
declared length, its fields first and the manifest (sizes and SHA-256 of the files) last."""

from __future__ import annotations

import hashlib
import io
import json

from django.http.multipartparser import MultiPartParser
from django.test import RequestFactory

from client.upload import FilePart, UploadBody


def test_the_body_is_a_whole_form_with_the_manifest_last():
    light, ami = b"light data\r\n--not a boundary\r\n" * 500, bytes(range(256)) * 1200
    seen: list[int] = []
    body = UploadBody(
        [("run_name", "primary"), ("track", "llm")],
        [
            FilePart("light", "LIGHT.CONLLUA", io.BytesIO(light)),
            FilePart("ami", "a.x", io.BytesIO(ami)),
        ],
        progress=seen.append,
    )
    data = b"".join(body)
    assert len(data) == len(body) and seen[-1] == len(body)
    assert data.rstrip().endswith(f"--{body.boundary}--".encode())
    assert data.rindex(b'name="manifest"') > data.rindex(b'name="ami"')
    meta = {"CONTENT_TYPE": body.content_type, "CONTENT_LENGTH": str(len(data))}
    post, files = MultiPartParser(
        meta, io.BytesIO(data), RequestFactory().post("/").upload_handlers
    ).parse()
    assert post["run_name"] == "primary" and post["manifest_follows"] == "1"
    assert files["light"].read() == light and files["ami"].read() == ami
    listed = {e["field"]: e for e in json.loads(post["manifest"])["files"]}
    assert listed["ami"] == {
        "field": "ami",
        "name": "a.x",
        "size": len(ami),
        "sha256": hashlib.sha256(ami).hexdigest(),
    }
    assert b"".join(body) == data  # sent again from its start (a retry)
