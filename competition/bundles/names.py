"""Names an import gives: datasets after their key files, as the platforms name datasets, a
short slug for the competition, and counted nouns.

A CorefUD key is named ``<lang>_<corpus>-corefud-<split>.conllu`` (``en_gum-corefud-dev``,
``cs_pdt-corefud-test``); the dataset is the treebank, ``en_gum``, the same in every phase,
and its language is the code before the underscore. Other keys lose a split word at their end
(``AMI_dev.CONLLUA`` and ``AMI_test.CONLLUA`` are both ``AMI``).
"""

from __future__ import annotations

import re

from django.utils.text import slugify

SPLITS = (
    "train",
    "dev",
    "devel",
    "development",
    "test",
    "eval",
    "evaluation",
    "valid",
    "validation",
    "minidev",
    "minitest",
    "blind",
    "gold",
    "key",
    "keys",
)
SPLIT_SUFFIX = re.compile(rf"[-_.](?:{'|'.join(SPLITS)})$", re.I)
COREFUD = re.compile(r"^(?P<code>[a-z]{2,3})_(?P<corpus>[a-z0-9]+)-corefud(?:[-_.]\w+)*$", re.I)
LANGUAGES = {
    "ca": "Catalan",
    "cs": "Czech",
    "cu": "Old Church Slavonic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "grc": "Ancient Greek",
    "hbo": "Ancient Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "ko": "Korean",
    "la": "Latin",
    "lt": "Lithuanian",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "ru": "Russian",
    "tr": "Turkish",
}
"""The languages of CorefUD 1.4 by their codes (the datasets' prefixes)."""
NAMES_A_DATASET = re.compile(r"(^|[^a-z])[a-z]{2,3}_[a-z0-9]+", re.I)
"""A dataset's name as CorefUD writes them (``en_gum``) inside a column's label."""


def dataset_name(stem: str) -> tuple[str, str]:
    """The dataset a key file holds (its name without its split) and its language ("" when
    the name gives none)."""
    stem = re.sub(r"[^\w.-]+", " ", stem).strip()
    if match := COREFUD.match(stem):
        code = match["code"].lower()
        return f"{code}_{match['corpus']}", LANGUAGES.get(code, code)
    name = stem
    while (shorter := SPLIT_SUFFIX.sub("", name)) != name and shorter:
        name = shorter
    return name[:100] or "data", ""


def short_slug(title: str, *, limit: int = 40) -> str:
    """A slug of the title's first words (no parenthesised part), at most ``limit``
    characters and cut at a word: "CorefUD shared task (old server)" → "corefud-shared-task"."""
    plain = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", title)
    words = slugify(plain).split("-") or slugify(title).split("-")
    slug = ""
    for word in words:
        if not word:
            continue
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > limit or longer.count("-") >= 4:
            break
        slug = longer
    return slug or slugify(title)[:limit].strip("-")


def plural(count: int, noun: str, nouns: str = "") -> str:
    """ "1 gold key", "2 gold keys"."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
