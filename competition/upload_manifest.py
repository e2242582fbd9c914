"""An upload's manifest: the sender's list of the files it sends, checked on arrival.

The command line and the upload page send, as the *last* field of the multipart body, a JSON
``manifest`` naming each file field with its size and SHA-256::

    {"files": [{"field": "ca_ancora", "name": "ca_ancora-corefud-test.conllu",
                "size": 2345678, "sha256": "9f86d0…"}]}

A body cut anywhere cannot hold a complete manifest, so this is a second guard behind the
byte count (`competition.whole_body`): a file the manifest lists that did not arrive, or
arrived with other bytes, refuses the upload before anything is stored. A sender that sends a
manifest says so in an early field (``manifest_follows``), so that a body cut before the
manifest is not taken for an older client's, which sends neither and is not checked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from competition.errors import SubmissionRejected

MANIFEST_FIELD = "manifest"
FOLLOWS_FIELD = "manifest_follows"


def manifest_check(*, data: Mapping[str, Any], files: Mapping[str, Any]) -> None:
    """Refuse the upload whose files (field → uploaded file) differ from its manifest:
    ``upload_incomplete`` when something listed is missing (or the manifest itself),
    ``upload_manifest`` when a file's size or digest differs or a file is not listed."""
    text = data.get(MANIFEST_FIELD)
    if not text:
        if data.get(FOLLOWS_FIELD):
            raise SubmissionRejected("upload_incomplete")
        return  # an older client: nothing to check against
    listed = _parse(text)
    missing = sorted(set(listed) - set(files))
    if missing:
        raise SubmissionRejected("upload_incomplete", missing=missing)
    unlisted = sorted(set(files) - set(listed))
    if unlisted:
        raise SubmissionRejected("upload_manifest", reason=f"not listed: {', '.join(unlisted)}")
    for field, entry in listed.items():
        upload = files[field]
        if "size" in entry and entry["size"] != upload.size:
            raise SubmissionRejected(
                "upload_manifest",
                reason=f"{field}: {upload.size:,} bytes arrived, {entry['size']:,} were sent",
            )
        if entry.get("sha256") and entry["sha256"].lower() != _sha256(upload):
            raise SubmissionRejected(
                "upload_manifest", reason=f"{field}: its SHA-256 differs from the one sent"
            )


def _parse(text: Any) -> dict[str, dict]:
    """The manifest's files by field; a manifest that cannot be read is a cut one."""
    try:
        body = json.loads(text)
        entries = body["files"]
        listed = {str(entry["field"]): entry for entry in entries}
        if not all(isinstance(e.get("size", 0), int) for e in listed.values()):
            raise TypeError("a size is not a whole number")
        if not all(isinstance(e.get("sha256", ""), str) for e in listed.values()):
            raise TypeError("a digest is not text")
    except (ValueError, TypeError, KeyError, AttributeError):
        raise SubmissionRejected("upload_incomplete") from None
    return listed


def _sha256(upload: Any) -> str:
    """The file's SHA-256: kept by the upload handler as it arrived, or read again."""
    known = getattr(upload, "sha256", None)
    if known:
        return str(known)
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()
