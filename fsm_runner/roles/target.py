"""Target descriptions taken apart: label words, role, ordinal, state and an anchor.

"the second Delete button" -> label "delete", role button, ordinal 2;
"第二个删除按钮" -> the same in Chinese; "Delete in the row with Milk" ->
label "delete", relation row, anchor "Milk". Parsing never fails: what is not
understood stays in the label.
"""

from __future__ import annotations

import re

import attrs

from fsm_runner.roles.lexicon import (
    ABOVE_RELATIONS,
    BELOW_RELATIONS,
    CHINESE_NUMERALS,
    CHINESE_ORDINAL,
    CHINESE_STATE_BEFORE_ROLE,
    CHINESE_STOP,
    ENGLISH_ORDINALS,
    NEAR_RELATIONS,
    ROLE_PHRASES,
    ROLE_WORDS,
    ROW_RELATIONS,
    STATE_WORDS,
    STOP_WORDS,
    fold,
    is_cjk,
    words,
)

_QUOTED = re.compile(r"[\"“”「」『』]([^\"“”「」『』]+)[\"“”「」『』]|(?<![\w])'([^']+)'(?![\w])")
_NUMBERED = re.compile(r"(?:#|number\s+|no\.\s*)(\d+)")
_CHINESE_RELATION = re.compile(
    r"^(?:在)?(?P<anchor>.+?)(?P<rel>旁边|右边|左边|附近|那一行|这一行|所在的?行|同一行|一行|行中|行里|下方|下面|上方|上面)的?(?P<rest>.+)$"
)
_CHINESE_REL_KIND = {
    "旁边": "near",
    "右边": "near",
    "左边": "near",
    "附近": "near",
    "下方": "below",
    "下面": "below",
    "上方": "above",
    "上面": "above",
}
_STATE_FLAGS_NEEDING_TOGGLE = frozenset({"on", "off"})
_TOGGLE_ROLES = frozenset({"switch", "checkbox", "radio"})


@attrs.frozen
class Target:
    """A parsed target description.

    ``label`` is what the element should say (folded, may be empty for "the
    switch"); ``roles`` the roles it may have (empty: any); ``ordinal`` is 1-based,
    -1 for "last"; ``states`` are (flag, value) pairs the element must satisfy;
    ``relation`` is "row", "near", "below" or "above" with ``anchor`` the other
    element's description. ``literal`` is the reading that keeps ordinal and state
    words as label words ("the Last name field"), tried first when set.
    """

    text: str
    label: str = ""
    label_words: tuple[str, ...] = ()
    exact: bool = False
    roles: frozenset[str] = frozenset()
    role_word: str = ""
    ordinal: int | None = None
    states: tuple[tuple[str, bool], ...] = ()
    relation: str | None = None
    anchor: str | None = None
    literal: Target | None = None

    def describe(self) -> str:
        """A short rendering for reasons: what was understood."""
        parts = []
        if self.ordinal is not None:
            parts.append("last" if self.ordinal == -1 else f"#{self.ordinal}")
        parts.extend(("" if v else "not ") + f for f, v in self.states)
        if self.label:
            parts.append(repr(self.label))
        if self.role_word:
            parts.append(self.role_word)
        if self.relation:
            parts.append(f"{self.relation} {self.anchor!r}")
        return " ".join(parts) or repr(self.text)


def parse_target(description: str) -> Target:
    """Take a description apart; an unparseable one becomes a plain label."""
    text = fold(description)
    relation, anchor, text = _split_relation(text)
    target = _parse_chinese(description, text) if any(is_cjk(c) for c in text) else _parse_english(description, text)
    if relation:
        target = attrs.evolve(target, relation=relation, anchor=anchor)
    return target


def _split_relation(text: str) -> tuple[str | None, str | None, str]:
    groups = (
        ("row", ROW_RELATIONS),
        ("near", NEAR_RELATIONS),
        ("below", BELOW_RELATIONS),
        ("above", ABOVE_RELATIONS),
    )
    phrases = sorted(((p, kind) for kind, ps in groups for p in ps), key=lambda pk: -len(pk[0]))
    for phrase, kind in phrases:
        match = re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", text)
        if match and match.start() > 0 and text[match.end() :].strip():
            anchor = text[match.end() :].strip()
            anchor = re.sub(r"^(the|a|an)\s+", "", anchor)
            return kind, anchor, text[: match.start()].strip()
    match = _CHINESE_RELATION.match(text)
    if match:
        rel = match.group("rel")
        return _CHINESE_REL_KIND.get(rel, "row"), match.group("anchor"), match.group("rest")
    return None, None, text


def _parse_english(original: str, text: str) -> Target:
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    rest = _QUOTED.sub(" ", text)
    ordinal: int | None = None
    numbered = _NUMBERED.search(rest)
    if numbered:
        ordinal = int(numbered.group(1))
        rest = rest[: numbered.start()] + " " + rest[numbered.end() :]
    for phrase, word in ROLE_PHRASES.items():
        rest = re.sub(rf"(?<![\w]){phrase}(?![\w])", word, rest)
    tokens = words(rest)
    role_index = max((i for i, w in enumerate(tokens) if w in ROLE_WORDS), default=-1)
    role_word = tokens[role_index] if role_index >= 0 else ""
    roles = ROLE_WORDS.get(role_word, frozenset())
    label: list[str] = []
    literal: list[str] = []
    states: list[tuple[str, bool]] = []
    for i, word in enumerate(tokens):
        if i == role_index:
            continue
        if word in ENGLISH_ORDINALS and ordinal is None:
            ordinal = ENGLISH_ORDINALS[word]
            literal.append(word)
        elif word in STATE_WORDS and (word not in _STATE_FLAGS_NEEDING_TOGGLE or roles & _TOGGLE_ROLES):
            states.append(STATE_WORDS[word])
            literal.append(word)
        elif word not in STOP_WORDS:
            label.append(word)
            literal.append(word)
    if quoted:
        label = words(" ".join(quoted))
    target = Target(
        text=original,
        label=" ".join(label),
        label_words=tuple(label),
        exact=bool(quoted),
        roles=roles,
        role_word=role_word,
        ordinal=ordinal,
        states=tuple(states),
    )
    if (ordinal is not None or states) and not quoted and literal != label:
        target = attrs.evolve(
            target,
            literal=Target(
                text=original,
                label=" ".join(literal),
                label_words=tuple(literal),
                roles=roles,
                role_word=role_word,
            ),
        )
    return target


def _parse_chinese(original: str, text: str) -> Target:
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    rest = _QUOTED.sub(" ", text).replace(" ", "")
    ordinal: int | None = None
    match = CHINESE_ORDINAL.search(rest)
    if match:
        number = match.group(1)
        ordinal = -1 if number is None else int(number) if number.isdigit() else CHINESE_NUMERALS[number]
        rest = rest[: match.start()] + rest[match.end() :]
    states: list[tuple[str, bool]] = []
    for word in sorted(STATE_WORDS, key=len, reverse=True):
        if not any(is_cjk(c) for c in word) or word not in rest:
            continue
        if word in CHINESE_STATE_BEFORE_ROLE and not re.search(re.escape(word) + r"的?(开关|复选框|勾选框|选项)", rest):
            continue
        states.append(STATE_WORDS[word])
        rest = rest.replace(word, "", 1)
    for stop in CHINESE_STOP:
        rest = rest.replace(stop, "")
    if ordinal is not None or states:
        rest = rest.removeprefix("的")
    role_word = ""
    for word in sorted((w for w in ROLE_WORDS if any(is_cjk(c) for c in w)), key=len, reverse=True):
        if rest.endswith(word) and (len(rest) > len(word) or not quoted):
            role_word, rest = word, rest[: -len(word)].removesuffix("的")
            break
    if not role_word:
        english = [w for w in words(rest) if w in ROLE_WORDS]
        if english:
            role_word = english[-1]
            rest = re.sub(rf"(?<![a-z]){role_word}(?![a-z])", "", rest).removesuffix("的")
    label_words = [w for w in words(" ".join(quoted) if quoted else rest) if w not in STOP_WORDS]
    return Target(
        text=original,
        label=" ".join(label_words),
        label_words=tuple(label_words),
        exact=bool(quoted),
        roles=ROLE_WORDS.get(role_word, frozenset()),
        role_word=role_word,
        ordinal=ordinal,
        states=tuple(states),
    )
