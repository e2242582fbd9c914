"""The compact reader's mention reading: the Entity= (and DiscourseDeixis=) brackets of a
node's MISC opened and closed into mentions, SplitAnte= and Bridge= kept for the document's
end. A step of `scoring.readers.compact_document._DocumentBuilder`."""

from __future__ import annotations

import re

from scoring.readers.compact_lines import unescape
from scoring.readers.compact_state import _DocumentState, _Mention

_ITEM = re.compile(r"\(([^()]*)(\))?|([^()]+)\)")
_PART = re.compile(r"^(.*)\[(\d+)/(\d+)\]$")


class _MentionReading(_DocumentState):
    """Reading a node's annotations into the document's mentions."""

    def take_mentions(self, found: list[tuple[str, dict[str, str], int, int, int]]) -> None:
        """The identity mentions `scoring.native._speedups.entity_mentions` read: each of one part,
        closed, on the nodes ``first``..``last`` (rows of a words-only document)."""
        names, mentions = self.attribute_names, self.mentions
        for entity, fields, line, first, last in found:
            mention = _Mention(entity, fields, line, len(mentions), "identity", 1, names)
            mention.ranges[1] = [first, last]
            mention.closed.add(1)
            mentions.append(mention)

    def annotate(self, number: int, index: int, misc: str) -> None:
        """The annotations in the MISC of node ``index`` (on line ``number``)."""
        if misc == "_" or "=" not in misc:
            return
        if misc.startswith("Entity=") and "|" not in misc:  # the usual MISC: only Entity=
            self.brackets(number, index, misc[7:], "identity")
            return
        for item in misc.split("|"):
            key, _, value = item.partition("=")
            if key == "Entity":
                self.brackets(number, index, value, "identity")
            elif key == "DiscourseDeixis":
                self.brackets(number, index, value, "discourse_deixis")
            elif key == "SplitAnte" and not self.exact_ua:
                self.read_split_ante(number, value)
            elif key == "Bridge" and not self.exact_ua:
                self.read_bridge(number, value, index)

    def brackets(self, number: int, index: int, value: str, layer: str) -> None:
        if len(value) > 1:  # the usual values: one opening, one closing, one single-word mention
            first, last = value[0], value[-1]
            if first == "(":
                inner = value[1:-1] if last == ")" else value[1:]
                if "(" not in inner and ")" not in inner:
                    self.open_mention(number, index, inner, layer, last == ")")
                    return
            elif last == ")" and "(" not in value and ")" not in value[:-1]:
                self.close(number, index, value[:-1], layer)
                return
        pos = 0
        for match in _ITEM.finditer(value):
            if match.start() != pos:
                break
            pos = match.end()
            if match.group(3) is not None:
                self.close(number, index, match.group(3), layer)
            else:
                mention = self.open_mention(number, index, match.group(1), layer)
                if match.group(2):
                    self.close_part(number, index, mention, layer)
        if pos != len(value) or not value:
            key = "Entity" if layer == "identity" else "DiscourseDeixis"
            raise self.fail(
                number,
                f"cannot read {key}={value!r} (expected openings "
                "'(e1-…', single-word mentions "
                "'(e1-…)' and closings 'e1)')",
                "brackets",
            )

    def open_mention(
        self, number: int, index: int, content: str, layer: str, single: bool = False
    ) -> _Mention:
        """The mention (or next part of a discontinuous mention) an opening starts on node
        ``index``; ``single``: it closes there too (``(e1-…)``)."""
        values = content.split("-")
        names = self.fields
        if "%" in content:
            fields = self.unescaped_fields(values)
        else:  # nothing escaped (the common case): the same dict, built in C
            fields = dict(zip(names, values))
            if len(values) < len(names):
                for name in names[len(values) :]:
                    fields[name] = ""
        raw_id = values[0]
        part, total = 1, 1
        if "[" in raw_id and (match := _PART.match(raw_id)):
            raw_id, part, total = self.part_of(number, match)
        entity = unescape(raw_id) if "%" in raw_id else raw_id
        if not entity:
            raise self.fail(
                number,
                f"opening '({content}' has no entity id (expected '({self.fields[0]}-…')",
                "brackets",
            )
        if part == 1:
            mention = _Mention(
                entity, fields, number, len(self.mentions), layer, total, self.attribute_names
            )
            self.mentions.append(mention)
            if total > 1:
                self.pending.setdefault((layer, entity, total), []).append(mention)
        else:
            mention = self.continued(number, (layer, entity, total), part, fields)
        mention.ranges[part] = [index, index]
        if total > 1:
            self.parts_open.setdefault((layer, entity, part, total), []).append(mention)
            mention.fields["_part"] = str(part)  # which part a closing ends (close_part)
            if single:
                self.close_part(number, index, mention, layer)
        elif single:  # opened and closed on this node: never on the stack of open mentions
            mention.closed.add(1)
        elif (stack := self.open.get((layer, entity))) is None:
            self.open[(layer, entity)] = [mention]
        else:
            stack.append(mention)
        return mention

    def unescaped_fields(self, values: list[str]) -> dict[str, str]:
        """An opening's fields by name, ``%XX`` undone in every one but ``ua``."""
        return {
            name: (values[i] if name == "ua" else unescape(values[i])) if i < len(values) else ""
            for i, name in enumerate(self.fields)
        }

    def part_of(self, number: int, match: re.Match[str]) -> tuple[str, int, int]:
        """(entity id, k, n) of an opening of part ``[k/n]`` of a discontinuous mention."""
        raw_id, part, total = match.group(1), int(match.group(2)), int(match.group(3))
        if not 1 <= part <= total:
            raise self.fail(
                number,
                f"discontinuous part [{part}/{total}] (expected [k/n] with 1 <= k <= n)",
                "brackets",
            )
        return raw_id, part, total

    def continued(
        self, number: int, key: tuple[str, str, int], part: int, fields: dict[str, str]
    ) -> _Mention:
        """The mention part ``part`` (> 1) of entity ``key`` (layer, entity, parts) continues:
        the earliest one whose next part it is; its fields take the part's where empty."""
        candidates = [m for m in self.pending.get(key, ()) if len(m.ranges) == part - 1]
        if not candidates:
            _, entity, total = key
            raise self.fail(
                number,
                f"part [{part}/{total}] of entity {entity} has no "
                f"part [{part - 1}/{total}] before it",
                "brackets",
            )
        mention = candidates[0]
        for name, val in fields.items():
            if val and not mention.fields.get(name):
                mention.fields[name] = val
        return mention

    def close(self, number: int, index: int, content: str, layer: str) -> None:
        raw_id = content.split("-", 1)[0]
        if "[" in raw_id and (match := _PART.match(raw_id)):
            entity = unescape(match.group(1))
            part, total = int(match.group(2)), int(match.group(3))
            stack = self.parts_open.get((layer, entity, part, total))
            if not stack:
                raise self.fail(
                    number,
                    f"closing '{content})' has no open part [{part}/{total}] "
                    f"of entity {entity} (expected an earlier '({raw_id}-…')",
                    "unopened",
                )
            mention = stack.pop()
            self.finish_part(number, index, mention, part)
            return
        entity = unescape(raw_id)
        stack = self.open.get((layer, entity))
        if not stack:
            raise self.fail(
                number,
                f"closing '{content})' has no open mention of entity "
                f"{entity} (expected an earlier '({raw_id}-…')",
                "unopened",
            )
        mention = stack.pop()  # a mention of one part (finish_part, inlined)
        mention.ranges[1][1] = index
        mention.closed.add(1)

    def close_part(self, number: int, index: int, mention: _Mention, layer: str) -> None:
        if mention.parts_total == 1:  # the usual mention, of one part (finish_part, inlined)
            self.open[(layer, mention.entity)].pop()
            mention.ranges[1][1] = index
            mention.closed.add(1)
            return
        part = int(mention.fields["_part"])
        self.parts_open[(layer, mention.entity, part, mention.parts_total)].pop()
        self.finish_part(number, index, mention, part)

    def finish_part(self, number: int, index: int, mention: _Mention, part: int) -> None:
        mention.ranges[part][1] = index
        mention.closed.add(part)
        if len(mention.closed) == mention.parts_total and mention.parts_total > 1:
            self.pending[(mention.layer, mention.entity, mention.parts_total)].remove(mention)

    def read_split_ante(self, number: int, value: str) -> None:
        for entry in value.split(","):
            ante, sep, plural = entry.partition("<")
            if not sep or not ante or not plural:
                raise self.fail(
                    number,
                    f"SplitAnte entry {entry!r} (expected "
                    "ANTECEDENT<PLURAL, e.g. SplitAnte=e1<e3,e2<e3)",
                    "split_ante",
                )
            self.split_ante.append((ante, plural, number))

    def read_bridge(self, number: int, value: str, index: int) -> None:
        for entry in value.split(","):
            anchor, sep, rest = entry.partition("<")
            anaphor, _, relation = rest.partition(":")
            if not sep or not anchor or not anaphor:
                raise self.fail(
                    number,
                    f"Bridge entry {entry!r} (expected ANCHOR<ANAPHOR[:rel], e.g. Bridge=e12<e15)",
                    "bridge",
                )
            self.bridges.append((anchor, anaphor, relation, number, index))
