"""The hostile-input corpus: uploads built to break a reader, one per case, made on demand.

The cases are generated, not stored (some are hundreds of kilobytes or 20,000 zip members;
the repository stays small): ``yaml_cases()``, ``zip_cases()`` and ``csv_cases()`` return
``{case: bytes}``. ``python tests/data/hostile/corpus.py OUT`` writes them to the folder OUT
to probe a running site by hand. SOURCE: written for this repository (issue "Roles hold at
every door; hostile input never reaches a 500"); no outside data.

Every case must be refused by every door that reads its kind, with a message naming the
upload (tests/competition/security/test_hostile_corpus.py).
"""

from __future__ import annotations

import functools
import io
import stat
import sys
import zipfile
from pathlib import Path

# --- YAML -----------------------------------------------------------------------------------

DEEP = 150_000  # a few hundred kilobytes of nesting: far beyond Python's recursion limit


def _laughs() -> str:
    """The "billion laughs": nine levels of ten aliases, 10^9 values from 1 KB."""
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for before, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{before}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def _alias_tower() -> str:
    """Aliases stacking shallow lists into a deep one (each level 20 deep as written)."""
    lines = ["l0: &l0 " + "[" * 20 + "x" + "]" * 20]
    lines += [f"l{n}: &l{n} " + "[" * 20 + f"*l{n - 1}" + "]" * 20 for n in range(1, 8)]
    return "\n".join(lines) + "\n"


@functools.cache
def yaml_cases() -> dict[str, bytes]:
    """Definitions (and bundles' competition.yaml) that no reader may build."""
    head = "slug: codi-test\ntitle: Hostile\n"
    cases = {
        "deep-lists": "x: " + "[" * DEEP + "]" * DEEP,
        "deep-mappings": "x: " + "{a: " * (DEEP // 2) + "}" * (DEEP // 2),
        "deep-lists-open": "x: " + "[" * DEEP,  # never closed
        "deep-block": "".join(" " * i + "a:\n" for i in range(1200)),
        "deep-block-lists": "".join(" " * i + "- \n" for i in range(1200)),
        "billion-laughs": head + _laughs(),
        "self-alias": head + "tasks: &t [*t]\n",
        "alias-tower": head + _alias_tower(),
        "merge-bomb": head
        + "base: &b {"
        + ", ".join(f"k{i}: v" for i in range(50))
        + "}\n"
        + "".join(f"m{i}: {{<<: *b}}\n" for i in range(2500)),
        "many-values": head + "x: [" + ", ".join(["1"] * 60_000) + "]\n",
        "nul-escaped": head.replace("Hostile", '"Hos\\0tile"') + "tasks: []\n",
        "nul-in-key": head + '"ta\\0sks": []\n',
        "nul-raw": head + "description: a\x00b\n",
        "undefined-alias": head + "tasks: *nowhere\n",
        "python-object": head + "tasks: !!python/object/apply:os.system ['true']\n",
        "not-a-mapping": "- just\n- a list\n",
        "tabs": "slug: codi-test\n\ttitle: x\n",
        "empty": "",
    }
    data = {name: text.encode("utf-8") for name, text in cases.items()}
    data["not-utf8"] = head.encode() + b"description: caf\xe9\n"
    data["binary"] = bytes(range(256)) * 64
    return data


# --- zip archives -----------------------------------------------------------------------------

DEFINITION = b"slug: codi-test\ntitle: Hostile\ntasks: []\n"


def _zip(members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buffer.getvalue()


def _link(name: str, target: bytes) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


def _renamed(name: str, data: bytes) -> bytes:
    """A zip whose one member is called ``name`` even where ``zipfile`` would not write it
    (a NUL in the name): written as "x" * len, then the bytes of the name replaced."""
    placeholder = "x" * len(name.encode("utf-8"))
    return _zip([(placeholder, data)]).replace(placeholder.encode(), name.encode("utf-8"))


@functools.cache
def zip_cases() -> dict[str, bytes]:
    """Zips (a definition's, a bundle, a run) whose names or counts no unpacker may write."""
    yaml = ("competition.yaml", DEFINITION)
    long_part = "n" * 300
    return {
        "file-then-folder": _zip([yaml, ("data", b"x"), ("data/x", b"y")]),
        "folder-then-file": _zip([yaml, ("data/x", b"y"), ("data", b"x")]),
        "folder-entry-and-file": _zip([yaml, ("data/", b""), ("data", b"x")]),
        "named-twice": _zip([yaml, ("pages/a.md", b"1"), ("pages/./a.md", b"2")]),
        "long-name": _zip([yaml, (f"pages/{long_part}.md", b"x")]),
        "long-path": _zip([yaml, ("/".join(["d" * 200] * 30) + "/x.md", b"x")]),
        "many-members": _zip([yaml] + [(f"m/{n}.txt", b"") for n in range(20_000)]),
        "nul-name": _renamed("pa\x00ges.md", b"x"),
        "absolute": _zip([yaml, ("/etc/cron.d/x", b"x")]),
        "dotdot": _zip([yaml, ("../../escape.txt", b"x")]),
        "backslash": _zip([yaml, ("..\\..\\escape.txt", b"x")]),
        "symlink": _zip([yaml, _link("keys/passwd", b"/etc/passwd")]),
        "nested-deep": _zip([yaml, ("a.zip", _zip([("b.zip", _zip([("c.zip", b"PK")]))]))]),
        "truncated": _zip([yaml, ("pages/a.md", b"x" * 1000)])[:-30],
        "not-a-zip": b"PK\x03\x04 this is not a zip at all",
        "empty-zip": _zip([]),
    }


# --- CSV --------------------------------------------------------------------------------------

HEADER = "submission_pk,User,LIGHT CoNLL F1\n"


@functools.cache
def csv_cases() -> dict[str, bytes]:
    """Results tables that no import may store."""
    cases = {
        "nul-in-cell": HEADER + "1,alice,50.0\n2,bo\x00b,40.0\n",
        "huge-cell": HEADER + "1," + "a" * 200_000 + ",50.0\n",
        "cell-over-limit": HEADER + "1," + "a" * 20_000 + ",50.0\n",
        "bare-cr": HEADER + "1,ali\rce,50.0\n",
        "infinite": HEADER + "1,alice,1e999\n",
        "negative": HEADER + "1,alice,-5\n",
        "no-rows": HEADER,
        "empty": "",
    }
    data = {name: text.encode("utf-8") for name, text in cases.items()}
    data["not-utf8"] = HEADER.encode() + b"1,caf\xe9,50.0\n"
    return data


def main(out: Path) -> None:
    for suffix, cases in (("yaml", yaml_cases()), ("zip", zip_cases()), ("csv", csv_cases())):
        for name, data in cases.items():
            (out / f"{name}.{suffix}").write_bytes(data)


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    main(target)
