"""Personal data out of production traffic, before anything is judged, stored or exported.

Each item found is replaced by a placeholder naming its kind (`[EMAIL]`, `[PHONE]`, `[CARD]`,
`[ACCOUNT]`, `[NAME]`) and counted; what was found is never returned, kept or logged, so the
counts (`RedactionCounts`) are all that a report or a run's provenance can hold. The rules are
patterns, not a model: a million turns are redacted on import, and no multilingual recogniser
of names with its weights inside a package could be had (spaCy's models on PyPI cover French
and an outdated Spanish only, `names-dataset` needs gigabytes of memory, the rest load from a
hub at run time).

- **e-mail**: a local part in any script (a CJK one only after a space or punctuation: running
  Chinese or Japanese text has no word boundary to start it at), `@` or `＠`, a domain whose
  labels may be internationalised and whose top level is ASCII, punycode or a CJK one.
- **card**: 13–19 digits grouped by spaces or dashes, in the card networks' ranges and passing
  the Luhn check, so nine long order numbers in ten stay.
- **account**: an IBAN in capitals, as banks print it (a country code, check digits and at
  least ten digits, passing mod 97: a lowercase hex id passes it one time in 97);
  and a number of at least seven digits shortly after an account word of the seven languages
  (account, Konto, cuenta, compte, conta, 口座, 普通, 账号 ...), unless grouped in thousands
  like an amount ("la ville compte 2 000 000 habitants") or written with a fraction ("le
  score compte pour 1234567.5").
- **phone**: international numbers (`+` or `00`, 8–15 digits), and national ones in the formats
  of the seven languages' countries (a Spanish number is nine digits, a French one ten in
  pairs, a Japanese one 0-led in three groups), in every dialogue: its language may be a guess
  and its users may switch. A national number written without separators or grouped like
  thousands, though, is a phone only in the formats of the dialogue's language: elsewhere it
  is not told from an order number or an amount. Dates, times, years, prices (a number beside
  a currency) and postcodes stay.
- **name**: only where the text says it is a name: after a self-introduction or a form's label
  ("my name is", "ich heiße", "me llamo", "je m'appelle", "meu nome é", "我叫", "名前は",
  "Name:"), or before "と申します", in any of the seven languages whatever the dialogue's: the
  capitalised words that follow (two or three Han characters in Chinese, a run of kanji or
  katakana in Japanese). After the weaker introductions that also say what people are ("I'm",
  "ich bin", "soy", "je suis", "sou", "aqui é"), only two capitalised words or more make a name:
  "I'm James Carter" is one, "I'm Canadian" and "ich bin Lehrer" are not (a capitalised place
  of two words is taken too). One more place says what it holds: a value whose key names a
  person (`{"passenger": "Lena Schmidt"}` in a tool call's arguments, in a tool's result that
  is JSON, or in metadata; `PERSON_KEYS`), which is redacted whole. A name found either way is
  then redacted wherever the same dialogue repeats it (a booking tool's `{"name": "Jonas
  Becker"}` after "ich heiße Jonas Becker"); a name mentioned any other way is not found.

Digits in a word that also holds letters (a UUID, a trace id, an order reference) are an
identifier's and stay. Digits may be full-width or of any script. No placeholder holds a digit,
an `@` or a word that starts with a capital, so redacting twice changes nothing more.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Literal

from pydantic import Field, JsonValue

from dialbench.schema import Dialogue, GenerationAttempt, Record, SeedContext, Turn, base_language

PersonalDataKind = Literal["email", "phone", "card", "account", "name"]
PLACEHOLDERS: dict[PersonalDataKind, str] = {
    "email": "[EMAIL]",
    "phone": "[PHONE]",
    "card": "[CARD]",
    "account": "[ACCOUNT]",
    "name": "[NAME]",
}


class RedactionCounts(Record):
    """How many items of each kind were redacted: the counts, never the values."""

    email: int = Field(default=0, ge=0)
    phone: int = Field(default=0, ge=0)
    card: int = Field(default=0, ge=0)
    account: int = Field(default=0, ge=0)
    name: int = Field(default=0, ge=0)

    @classmethod
    def of(cls, counts: Counter[str]) -> RedactionCounts:
        """From `redact_text`'s or `redact_dialogue`'s counts."""
        return cls.model_validate(dict(counts))

    @property
    def total(self) -> int:
        return self.email + self.phone + self.card + self.account + self.name

    def __add__(self, other: RedactionCounts) -> RedactionCounts:
        return RedactionCounts(
            **{kind: getattr(self, kind) + getattr(other, kind) for kind in PLACEHOLDERS}
        )


# Scripts whose running text has no spaces between words.
_CJK = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_TOP_LEVEL = "中国|中國|香港|台湾|台灣|公司|网络|網絡|在线|みんな|コム"
_EMAIL = re.compile(
    rf"(?:[^\W{_CJK}](?:[^\W{_CJK}]|[.+'\-])*|(?<!\w)[{_CJK}]+)"
    r"[@＠]"
    r"(?:[^\W_](?:[\w\-]*[^\W_])?\.)+"
    rf"(?:[A-Za-z]{{2,63}}(?![A-Za-z0-9\-])|xn--[A-Za-z0-9\-]+|{_CJK_TOP_LEVEL})"
)

_DIGIT = re.compile(r"\d")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
_DASHES = "\\-\u2010\u2011\u2012\u2013\u2212\u30fc\uff0d"
_SPACES = " \u00a0\u3000"
# A run of digits and what separates the groups of a number (never a comma, colon or letter).
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_#№＃@])(?:[+＋] ?)?[(（]?\d"
    rf"(?:(?:[{_SPACES}]?[()（）][{_SPACES}]?|[{_SPACES}./{_DASHES}])?\d)*"
)
_TO_DASH = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2212\u30fc", "-"))
_NON_DIGIT = re.compile(r"\D")
# An account word shortly before a number, with no other number or sentence end between.
_ACCOUNT_BEFORE = re.compile(
    r"(?:\b(?:account|acct|kto|cuenta|clabe|compte|rib|conta)\b|konto|口座|账号|帐号|賬號|帳號"
    r"|账户|帐户|帳戶|户口|普通|当座)[^\d\n。！？!?\[\]]{0,20}$",
    re.IGNORECASE,
)
_CARD_CHARACTERS = frozenset("0123456789 -")
# Digits grouped in thousands ("2 000 000", "612.345.678"): an amount as often as a number.
_THOUSANDS = re.compile(r"\d{1,3}(?:[ .]\d{3})+")
_IDENTIFIER_CHARACTER = re.compile(r"[A-Za-z0-9-]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")
# A number with a fraction ("123456.3", "1234567.50"): a quantity, never an account.
_DECIMAL = re.compile(r"\d+\.\d{1,2}")
# A number beside a currency is an amount; one before a time's minutes ends in an hour.
_AMOUNT_OR_TIME_AFTER = re.compile(
    r"[:：h]\d|\s?(?:[€$£¥₩₹元円]|(?:eur|euros?|usd|dollars?|reais|yuan|rmb|pesos?|chf)\b)",
    re.IGNORECASE,
)
_AMOUNT_BEFORE = re.compile(
    r"(?:[€$£¥₩₹]|\b(?:eur|usd|gbp|jpy|cny|rmb|brl|mxn|chf))\s?$", re.IGNORECASE
)

# National phone formats as written (separators made ASCII), with their numbers of digits.
_NATIONAL_PHONES: dict[str, list[tuple[re.Pattern[str], int, int]]] = {
    language: [(re.compile(shape), low, high) for shape, low, high in shapes]
    for language, shapes in {
        "en": [
            (r"(?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}", 10, 11),
            (r"0\d{2,4}[ \-]?\d{3,4}[ \-]?\d{3,4}", 10, 11),
        ],
        "de": [(r"(?:\(0\d{2,5}\) ?|0\d{2,5}[ /\-]?)\d{2,8}(?:[ \-]\d{1,8})*", 9, 12)],
        "es": [
            (r"[6-9]\d{2}[ \-]?\d{3}[ \-]?\d{3}|[6-9]\d{1,2}(?:[ \-]\d{2,3}){3}", 9, 9),
            (r"\d{2} \d{4} \d{4}|\d{3} \d{3} \d{4}", 10, 10),
        ],
        "fr": [(r"0[1-9](?:[ .\-]?\d{2}){4}", 10, 10)],
        "pt": [
            (r"(?:\(\d{2}\) ?|\d{2} )9?\d{4}[ \-]?\d{4}|9\d{4}-\d{4}|[1-9]{2}9\d{8}", 9, 11),
            (r"[29]\d{2} ?\d{3} ?\d{3}", 9, 9),
        ],
        "zh": [
            (r"1[3-9]\d[ \-]?\d{4}[ \-]?\d{4}", 11, 11),
            (r"(?:\(0\d{2,3}\) ?|0\d{2,3}[ \-]?)\d{7,8}|[48]00[ \-]?\d{3}[ \-]?\d{4}", 10, 12),
            (r"09\d{2}[ \-]?\d{3}[ \-]?\d{3}", 10, 10),
        ],
        "ja": [(r"0\d{1,4}[ \-]?\d{1,4}[ \-]?\d{3,4}|0\d{1,4}\(\d{1,4}\)\d{4}", 10, 11)],
    }.items()
}
_ALL_NATIONAL_PHONES = [shape for shapes in _NATIONAL_PHONES.values() for shape in shapes]

_INTRODUCTIONS = (
    *("my name is", "my name's", "i am called", "i'm called"),
    *("ich heiße", "ich heisse", "mein name ist", "mein name lautet", "mein vorname ist"),
    *("mein nachname ist", "me llamo", "mi nombre es", "mi apellido es", "je m'appelle"),
    *("je m’appelle", "mon nom est", "mon prénom est", "meu nome é", "meu apelido é"),
    *("meu sobrenome é", "me chamo", "chamo-me"),
)
# Say who someone is, or what: a name follows only as two capitalised words or more.
_WEAK_INTRODUCTIONS = (
    *("i'm", "i’m", "i am", "this is", "ich bin", "hier ist", "hier spricht", "soy", "je suis"),
    *("sou", "aqui é", "aqui fala"),
)
_LABELS = (
    *("name", "vorname", "nachname", "nombre", "apellido", "apellidos", "nom", "prénom"),
    *("nome", "sobrenome"),
)
# Kept before the name they introduce: "mein Name ist Dr. [NAME]".
_TITLES = (
    r"(?:dr|prof|mr|mrs|ms|mx|sr|sra|srta|dra|m|mme|mlle)\.|herr|frau|señora?|madame|monsieur|dona"
)
_CHINESE_INTRODUCTIONS = ("我叫", "我名叫", "我的名字是", "我的名字叫", "姓名：", "姓名:")
_JAPANESE_INTRODUCTIONS = ("名前は", "氏名：", "氏名:")
_HAN_KATAKANA = "\u3005\u30a0-\u30ff\u4e00-\u9fff"
# Keys whose string value is a person's name, in tool arguments and metadata. A bare `name` is
# not one of them: it names tools, traces and products as often as people.
PERSON_KEYS = frozenset(
    {"full_name", "fullname", "first_name", "firstname", "last_name", "lastname", "surname"}
    | {"given_name", "family_name", "passenger", "passenger_name", "customer_name", "guest_name"}
    | {"patient_name", "contact_name", "cardholder", "account_holder", "client_name", "cliente"}
    | {"holder", "guest", "recipient", "recipient_name", "addressee", "traveler", "traveller"}
    | {"attendee", "beneficiary", "payee", "sender_name", "destinatario", "titular", "hóspede"}
    | {"nombre", "nombre_completo", "apellido", "nome", "nome_completo", "sobrenome", "vorname"}
    | {"nachname", "prénom", "prenom", "nom", "nom_complet", "姓名", "名字", "氏名", "名前"}
)


def _any_of(phrases: tuple[str, ...]) -> str:
    return "|".join(map(re.escape, phrases))


# Literal and fast: the full pattern below runs only on the few texts this finds in lowercase.
_NAME_HINT = re.compile(
    _any_of(
        (
            *_INTRODUCTIONS,
            *_WEAK_INTRODUCTIONS,
            *(label + end for label in _LABELS for end in (":", " :")),
            *(*_CHINESE_INTRODUCTIONS, "我姓", *_JAPANESE_INTRODUCTIONS),
            *("と申します", "といいます", "と言います"),
        )
    )
)
_LATIN_WORD = r"[^\W\d_]+(?:['’\-][^\W\d_]+)*"
_NAME = re.compile(
    rf"(?P<latin_intro>(?<![^\W\d_])(?:{_any_of(_INTRODUCTIONS)}|(?:{_any_of(_LABELS)}) ?:)\s*"
    rf"(?:(?:{_TITLES})\s+)?)"
    rf"(?P<latin>{_LATIN_WORD}(?: {_LATIN_WORD}){{0,3}})"
    rf"|(?P<weak_intro>(?<![^\W\d_])(?:{_any_of(_WEAK_INTRODUCTIONS)})\s+(?:(?:a|o|el|la)\s+)?)"
    rf"(?P<weak>{_LATIN_WORD}(?: {_LATIN_WORD}){{1,3}})"
    # Chinese has nothing between a name and the next word: a name is two or three characters.
    rf"|(?P<chinese_intro>(?:{_any_of(_CHINESE_INTRODUCTIONS)})\s*)"
    r"(?!什么|什麼|甚麼|啥)[\u4e00-\u9fff]{2,3}"
    r"|(?P<surname_intro>我姓)[\u4e00-\u9fff]{1,2}"
    # A Japanese name in kanji or katakana ends where a copula, a particle or punctuation
    # follows (not okurigana: "名前は面白い" is no name).
    rf"|(?P<japanese_intro>(?:{_any_of(_JAPANESE_INTRODUCTIONS)})\s*)[{_HAN_KATAKANA}]{{2,8}}"
    r"(?=です|でございます|だ|と|さん|様|[、。，！？!?\s]|$)"
    # "と言います" also says what people say: the name must start its clause.
    rf"|[{_HAN_KATAKANA}]{{2,8}}(?=と申します)"
    rf"|(?<![^は、。！？\s])[{_HAN_KATAKANA}]{{2,8}}(?=といいます|と言います)",
    re.IGNORECASE,
)
# Lowercase words between two capitalised ones that belong to the name (Anna von Sydow), in
# Romance names and in Germanic ones.
_NAME_PARTICLES = frozenset(
    {"da", "das", "de", "del", "della", "di", "do", "dos", "du", "la", "le", "y"}
    | {"der", "van", "von"}
)


def redact_text(
    text: str, language: str, *, names: set[str] | None = None
) -> tuple[str, Counter[str]]:
    """`text` with each item of personal data replaced by its kind's placeholder, and how many
    of each kind were replaced (keys from `PLACEHOLDERS`). `language` (a BCP-47 tag) chooses
    the formats in which digits alone, or grouped in thousands, are a national phone number.
    The names the text introduces are added to `names`, when given."""
    counts: Counter[str] = Counter()
    if "@" in text or "＠" in text:
        text = _replace(_EMAIL, text, _email, counts)
    if _DIGIT.search(text):
        text = _replace(_IBAN, text, _iban, counts)
        bare = _NATIONAL_PHONES.get(base_language(language), [])
        text = _replace(_NUMBER, text, lambda match: _number(match, bare), counts)
    if _NAME_HINT.search(text.lower()):
        text = _replace(_NAME, text, partial(_name, names=names), counts)
    return text, counts


def redact_dialogue(dialogue: Dialogue) -> tuple[Dialogue, Counter[str]]:
    """The dialogue with personal data redacted from every text it carries (its turns, their
    generation attempts, a tool's arguments and result, the seed, the values of all metadata;
    not the keys, which name fields), and the counts.

    Its id is always the id of its redacted content, an id the log gave included: a log's
    conversation or session id may itself be an e-mail address, a phone number or a user's
    handle, no rule tells an opaque id from a personal one, and an id is what every stored
    record about the dialogue is joined by. Under the redacted content's id, the same
    conversation imported as is (the switch that keeps text) is a record of its own instead of
    a conflict, and repeated conversations fall together. The source file and line in its
    provenance lead back to the log.
    """
    redactor = _Redactor(dialogue.language)
    redacted = redactor.dialogue(dialogue)
    counts = redactor.counts
    if redactor.names:  # what a turn says is a name is a name wherever the dialogue repeats it
        repeats = _Redactor(dialogue.language, _names_pattern(redactor.names))
        redacted = repeats.dialogue(redacted)
        counts += repeats.counts
    redacted.id = redacted.content_id()
    return redacted, counts


def _names_pattern(names: set[str]) -> re.Pattern[str]:
    """Any of the names, longest first, as a whole word where it is written in Latin script
    ("Li" is no part of "Lisbon"); a name in Chinese or Japanese anywhere."""
    spelled = sorted(names, key=len, reverse=True)
    return re.compile("|".join(rf"(?<!\w){re.escape(name)}(?!\w)" for name in spelled))


class _Redactor:
    """Redacts the texts of one dialogue's records, adding up what it found and collecting the
    names it found (by introduction, or under a key that names a person); given `known`, it
    replaces only the names that matches, wherever they stand, in texts redacted already."""

    def __init__(self, language: str, known: re.Pattern[str] | None = None) -> None:
        self.language = language
        self.known = known
        self.counts: Counter[str] = Counter()
        self.names: set[str] = set()

    def dialogue(self, dialogue: Dialogue) -> Dialogue:
        return dialogue.model_copy(
            update={
                "seed": dialogue.seed and self.seed(dialogue.seed),
                "turns": [self.turn(turn) for turn in dialogue.turns],
                "metadata": self.metadata(dialogue.metadata),
            }
        )

    def text(self, text: str) -> str:
        if self.known is not None:
            redacted = _replace(self.known, text, _known_name, self.counts)
        else:
            redacted, found = redact_text(text, self.language, names=self.names)
            self.counts.update(found)
        return redacted

    def json(self, value: JsonValue) -> JsonValue:
        """Strings redacted, inside lists and objects too; and a long integer whose digits are
        a phone, card or account number (`{"card": 4111111111111111}`) becomes its placeholder."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**6:
            redacted = self.text(str(value))
            return value if redacted == str(value) else redacted
        if isinstance(value, list):
            return [self.json(item) for item in value]
        if isinstance(value, dict):
            return self.metadata(value)
        return value

    def metadata(self, values: dict[str, JsonValue]) -> dict[str, JsonValue]:
        return {
            key: self.person(value) if key.lower() in PERSON_KEYS else self.json(value)
            for key, value in values.items()
        }

    def person(self, value: JsonValue) -> JsonValue:
        """A value a key says is a person's name: redacted whole when it is text."""
        if not isinstance(value, str) or not value.strip():
            return self.json(value)
        if value != PLACEHOLDERS["name"]:  # redacted again, it was counted the first time
            self.counts["name"] += 1
            self.names.add(value.strip())
        return PLACEHOLDERS["name"]

    def tool_result(self, text: str) -> str:
        """A tool's result: one that parses as a JSON object or list is redacted as JSON (the
        key rule too, and strings its escapes hid from the text's patterns), written again
        only where something was found; any other result as text."""
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return self.text(text)
        if not isinstance(parsed, dict | list):
            return self.text(text)
        redacted = self.json(parsed)
        return text if redacted == parsed else json.dumps(redacted, ensure_ascii=False)

    def turn(self, turn: Turn) -> Turn:
        text = self.tool_result(turn.text) if turn.role == "tool" else self.text(turn.text)
        update: dict[str, object] = {
            "text": text,
            "attempts": [self.attempt(attempt) for attempt in turn.attempts],
            "metadata": self.metadata(turn.metadata),
        }
        if turn.tool is not None:
            arguments = self.json(turn.tool.arguments)
            update["tool"] = turn.tool.model_copy(update={"arguments": arguments})
        return turn.model_copy(update=update)

    def attempt(self, attempt: GenerationAttempt) -> GenerationAttempt:
        feedback = attempt.feedback and self.text(attempt.feedback)
        return attempt.model_copy(update={"text": self.text(attempt.text), "feedback": feedback})

    def seed(self, seed: SeedContext) -> SeedContext:
        update: dict[str, object] = {
            field: self.text(value)
            for field in ("scene", "persona", "affective_state")
            if (value := getattr(seed, field)) is not None
        }
        if seed.chatseed is not None:
            update["chatseed"] = [self.text(utterance) for utterance in seed.chatseed]
        return seed.model_copy(update={**update, "metadata": self.metadata(seed.metadata)})


# What a match is, and the text that replaces it; None: it is no personal data.
Found = tuple[PersonalDataKind, str] | None


def _replace(
    pattern: re.Pattern[str],
    text: str,
    found: Callable[[re.Match[str]], Found],
    counts: Counter[str],
) -> str:
    def replacement(match: re.Match[str]) -> str:
        redaction = found(match)
        if redaction is None:
            return match[0]
        kind, replaced = redaction
        counts[kind] += 1
        return replaced

    return pattern.sub(replacement, text)


def _known_name(match: re.Match[str]) -> Found:
    return "name", PLACEHOLDERS["name"]


def _email(match: re.Match[str]) -> Found:
    return "email", PLACEHOLDERS["email"]


def _iban(match: re.Match[str]) -> Found:
    """An IBAN passes mod 97; the match may have taken a word after it, so shorter ends are
    tried too, and what follows the IBAN is left as it was."""
    groups = match[0].split(" ")
    while groups:
        compact = "".join(groups).upper()
        if len(compact) < 15:
            return None
        numeric = "".join(str(int(c, 36)) for c in compact[4:] + compact[:4])
        if sum(c.isdigit() for c in compact) >= 10 and int(numeric) % 97 == 1:
            return "account", PLACEHOLDERS["account"] + match[0][len(" ".join(groups)) :]
        groups.pop()
    return None


def _number(match: re.Match[str], bare_phones: list[tuple[re.Pattern[str], int, int]]) -> Found:
    kind = _number_kind(match, bare_phones)
    return None if kind is None else (kind, PLACEHOLDERS[kind])


def _number_kind(
    match: re.Match[str], bare_phones: list[tuple[re.Pattern[str], int, int]]
) -> PersonalDataKind | None:
    """A phone, account or card number, or None (a date, a price, an order number, ...);
    `bare_phones`: the national formats in which digits alone, or grouped in thousands, are a
    phone number."""
    run = match[0]
    if len(run) < 7 or _inside_identifier(match):
        return None
    shape = unicodedata.normalize("NFKC", run).translate(_TO_DASH)
    digits = _NON_DIGIT.sub("", shape)
    if len(digits) < 7:
        return None
    before = match.string[max(0, match.start() - 32) : match.start()]
    if _AMOUNT_OR_TIME_AFTER.match(match.string, match.end()) or _AMOUNT_BEFORE.search(before):
        return None
    if shape[0] == "+":
        return "phone" if 8 <= len(digits) <= 15 else None
    if _ACCOUNT_BEFORE.search(before) and not (
        _THOUSANDS.fullmatch(shape) or _DECIMAL.fullmatch(shape)
    ):
        return "account"
    if shape.startswith("00") and shape[2] != "0" and 10 <= len(digits) <= 17:
        return "phone"
    if _is_card(shape, digits):
        return "card"
    ambiguous = shape == digits or _THOUSANDS.fullmatch(shape)
    for pattern, low, high in bare_phones if ambiguous else _ALL_NATIONAL_PHONES:
        if low <= len(digits) <= high and pattern.fullmatch(shape):
            return "phone"
    return None


def _inside_identifier(match: re.Match[str]) -> bool:
    """Digits in a word with letters, joined by dashes or not (a UUID, a trace id, `RW-88213`):
    an identifier's, never a phone, card or account number."""
    text, start, end = match.string, match.start(), match.end()
    while start > 0 and _IDENTIFIER_CHARACTER.match(text[start - 1]):
        start -= 1
    while end < len(text) and _IDENTIFIER_CHARACTER.match(text[end]):
        end += 1
    return _ASCII_LETTER.search(text, start, end) is not None


def _is_card(shape: str, digits: str) -> bool:
    """13–19 digits in groups split by spaces or dashes, in the networks' ranges (3–6, and
    Mastercard's 2221–2720, which a compact date-time such as 20240315143000 is not), passing
    the Luhn check."""
    if not 13 <= len(digits) <= 19:
        return False
    if digits[0] not in "3456" and not "2221" <= digits[:4] <= "2720":
        return False
    return set(shape) <= _CARD_CHARACTERS and _luhn(digits)


def _luhn(digits: str) -> bool:
    total = 0
    for position, character in enumerate(reversed(digits)):
        value = int(character) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _name(match: re.Match[str], names: set[str] | None = None) -> Found:
    """The name after its introduction replaced (and added to `names`); the introduction and
    what follows kept."""
    placeholder = PLACEHOLDERS["name"]
    if match["latin"] is not None:
        intro, rest = match["latin_intro"], match["latin"]
        name = _capitalised_words(rest)
        if not name:
            return None
    elif match["weak"] is not None:
        intro, rest = match["weak_intro"], match["weak"]
        name = _capitalised_words(rest)
        if len(name.split(" ")) < 2:
            return None
    else:
        intro = match["chinese_intro"] or match["surname_intro"] or match["japanese_intro"] or ""
        name = rest = match[0][len(intro) :]
    if names is not None and len(name) > 1:
        names.add(name)
    return "name", intro + placeholder + rest[len(name) :]


def _capitalised_words(words: str) -> str:
    """The leading words that make a name: capitalised, or a particle between two that are."""
    tokens = words.split(" ")
    kept = 0
    for index, token in enumerate(tokens):
        if token[0].isupper():
            kept = index + 1
        elif index == 0 or token.lower() not in _NAME_PARTICLES:
            break
    return " ".join(tokens[:kept])
