"""Gold keys' skeletons in the cache: per document its name, word forms and sentence ids
(`scoring.api.key_skeleton`), what an upload is checked against. One is kept per key (its
SHA-256 and stored file) and per validation options, so an upload never reads a key: the
skeleton is kept when the key is checked and stored, or read from the key on first use
where the cache lost it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from django.core.cache import cache

KEPT_FOR = 24 * 3600  # seconds; read from the key again after that


def _cache_key(*, sha256: str, words: Sequence[str], key_file: str) -> str:
    digest = hashlib.sha256(f"{sha256}|{' '.join(words)}|{key_file}".encode()).hexdigest()
    return f"skeleton:{digest}"


def skeleton_kept(*, sha256: str, words: Sequence[str], key_file: str) -> dict[str, Any] | None:
    """The kept skeleton of a key read with the options ``words``, or None."""
    return cache.get(_cache_key(sha256=sha256, words=words, key_file=key_file))


def skeleton_keep(
    *, sha256: str, words: Sequence[str], key_file: str, skeleton: dict[str, Any]
) -> None:
    """Keep ``skeleton`` as that of the key ``key_file`` (``sha256``) read with ``words``."""
    cache.set(_cache_key(sha256=sha256, words=words, key_file=key_file), skeleton, timeout=KEPT_FOR)
