"""Personal data redaction: every kind found in each of the seven languages, the numbers that are
no personal data left alone, and nothing planted surviving anywhere in a redacted dialogue, its
JSON or the run store it is saved in."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from personal_data_samples import FOUND, KEPT, PLAIN
from pydantic import ValidationError

from dialbench.io.personal_data import (
    PLACEHOLDERS,
    RedactionCounts,
    redact_dialogue,
    redact_text,
)
from dialbench.schema import Dialogue, GenerationAttempt, SeedContext, ToolUse, Turn
from dialbench.store import RunStore

LANGUAGES = ("en", "de", "es", "fr", "pt", "zh", "ja")


def test_the_samples_plant_every_kind_in_every_language() -> None:
    planted = {(language, kind) for language, kind, _, _ in FOUND}
    assert planted == set(itertools.product(LANGUAGES, PLACEHOLDERS))
    assert {language for language, _ in KEPT} == set(LANGUAGES)
    for _, _, sentence, value in FOUND:
        assert sentence.count(value) == 1


@pytest.mark.parametrize(
    ("language", "kind", "sentence", "value"), FOUND, ids=[f"{f[0]}-{f[1]}" for f in FOUND]
)
def test_each_kind_is_found_in_each_language(
    language: str, kind: str, sentence: str, value: str
) -> None:
    redacted, counts = redact_text(sentence, language)
    assert counts == Counter({kind: 1})
    assert redacted == sentence.replace(value, PLACEHOLDERS[kind])  # type: ignore[index]
    assert redact_text(redacted, language) == (redacted, Counter())


@pytest.mark.parametrize(("language", "sentence"), KEPT + PLAIN)
def test_years_prices_orders_dates_and_times_stay(language: str, sentence: str) -> None:
    assert redact_text(sentence, language) == (sentence, Counter())


def test_several_items_are_counted_by_kind() -> None:
    text = (
        "Mail lena@example.de or lena.k@example.org, call 0171 2345678 or +49 30 1234567, "
        "card 4111 1111 1111 1111, ich heiße Lena Krause. Termin am 15.03.2024 um 14:30."
    )
    redacted, counts = redact_text(text, "de")
    assert counts == Counter(email=2, phone=2, card=1, name=1)
    assert redacted == (
        "Mail [EMAIL] or [EMAIL], call [PHONE] or [PHONE], card [CARD], ich heiße [NAME]. "
        "Termin am 15.03.2024 um 14:30."
    )


def test_bare_national_numbers_follow_the_language_tag() -> None:
    assert redact_text("Ligue 11912345678", "pt-BR")[1] == Counter(phone=1)
    assert redact_text("手机１３９１２３４５６７８", "zh-Hans")[1] == Counter(phone=1)
    # Without separators or grouped like thousands, a Spanish mobile number is an order number
    # or an amount in a German dialogue; grouped as only a phone number is, it is one anywhere.
    assert redact_text("Bestellung 612345678", "de")[1] == Counter()
    assert redact_text("Umsatz 612 345 678", "de")[1] == Counter()
    assert redact_text("Handy in Spanien: 612 34 56 78", "de")[1] == Counter(phone=1)
    assert redact_text("Preis: 612 345 678 €", "es")[1] == Counter()


def planted(language: str, kind: str, number: int = 0) -> str:
    return [value for lang, k, _, value in FOUND if (lang, k) == (language, kind)][number]


def sentence_with(language: str, kind: str, number: int = 0) -> str:
    return [s for lang, k, s, _ in FOUND if (lang, k) == (language, kind)][number]


def production_dialogue(dialogue_id: str = "") -> Dialogue:
    """A support conversation with personal data in every place a dialogue holds text."""
    arguments = {
        "customer": {"email": planted("de", "email"), "phones": [planted("de", "phone")]},
        "card": 4111111111111111,
        "quantity": 3,
        "express": True,
    }
    return Dialogue(
        id=dialogue_id,
        language="de",
        source="openai-log",
        seed=SeedContext(
            persona=sentence_with("de", "name"),
            scene=f"Kunde mit Konto {planted('de', 'account')}",
            chatseed=[sentence_with("de", "phone", 1)],
            metadata={"crm": {"contact": planted("en", "email")}},
        ),
        turns=[
            Turn(role="user", text=sentence_with("de", "email"), metadata={"ip": "10.0.0.1"}),
            Turn(
                role="tool",
                text=json.dumps({"iban": planted("de", "account"), "stock": 12}),
                tool=ToolUse(name="lookup_customer", arguments=arguments, call_id="call_7"),
            ),
            Turn(
                role="tool",
                text="",
                tool=ToolUse(
                    name="send_sms", arguments=json.dumps({"to": planted("de", "phone", 2)})
                ),
            ),
            Turn(
                role="assistant",
                text=sentence_with("de", "card"),
                model="gpt-4o",
                attempts=[GenerationAttempt(text=sentence_with("de", "name", 1), feedback="ok")],
                metadata={"trace": [{"note": sentence_with("zh", "phone")}]},
            ),
        ],
        metadata={"session": planted("ja", "email"), "user": {"phone": planted("fr", "phone")}},
    )


PLANTED_IN_THE_DIALOGUE = [
    planted("de", "email"),
    planted("de", "phone"),
    "4111111111111111",
    planted("de", "name"),
    planted("de", "account"),
    planted("de", "phone", 1),
    planted("en", "email"),
    planted("de", "phone", 2),
    planted("de", "card"),
    planted("de", "name", 1),
    planted("zh", "phone"),
    planted("ja", "email"),
    planted("fr", "phone"),
]


def test_nothing_planted_remains_anywhere_in_a_redacted_dialogue(tmp_path: Path) -> None:
    original = production_dialogue()
    redacted, counts = redact_dialogue(original)

    before, after = original.model_dump_json(), redacted.model_dump_json()
    for value in PLANTED_IN_THE_DIALOGUE:
        assert value in before
        assert value not in after
    assert counts == Counter(email=4, phone=5, card=2, account=2, name=2)
    assert redacted.turns[1].tool is not None
    assert redacted.turns[1].tool.arguments == {
        "customer": {"email": "[EMAIL]", "phones": ["[PHONE]"]},
        "card": "[CARD]",
        "quantity": 3,
        "express": True,
    }
    assert redacted.turns[1].text == '{"iban": "[ACCOUNT]", "stock": 12}'
    assert redacted.turns[2].tool is not None
    assert redacted.turns[2].tool.arguments == '{"to": "[PHONE]"}'
    assert redacted.turns[0].metadata == {"ip": "10.0.0.1"}
    assert (redacted.turns[1].tool.name, redacted.turns[1].tool.call_id) == (
        "lookup_customer",
        "call_7",
    )

    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add([redacted], run)
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.is_file())
    assert redacted.id.encode() in stored
    for value in PLANTED_IN_THE_DIALOGUE:
        assert value.encode() not in stored


def test_a_redacted_dialogue_is_named_by_its_redacted_content() -> None:
    derived, _ = redact_dialogue(production_dialogue())
    given, _ = redact_dialogue(production_dialogue(dialogue_id="alice@example.com"))
    assert given.id == derived.id == derived.content_id() != production_dialogue().id
    assert redact_dialogue(derived) == (derived, Counter())


def test_a_dialogue_without_personal_data_keeps_its_content_and_id() -> None:
    dialogue = Dialogue(
        language="ja",
        turns=[Turn(role="user", text=text) for lang, text in KEPT + PLAIN if lang == "ja"],
    )
    assert redact_dialogue(dialogue) == (dialogue, Counter())


def test_counts_are_kinds_and_numbers_only() -> None:
    counts = RedactionCounts.of(Counter(email=2, phone=1))
    total = counts + RedactionCounts.of(Counter(name=4))
    assert total.model_dump() == {"email": 2, "phone": 1, "card": 0, "account": 0, "name": 4}
    assert total.total == 7
    with pytest.raises(ValidationError):
        RedactionCounts.of(Counter(passport=1))


def test_a_value_whose_key_names_a_person_is_redacted_whole() -> None:
    call = ToolUse(
        name="book",
        arguments={"passenger": "Lena Schmidt", "cliente": "Mariana Costa", "name": "Economy"},
    )
    turns = [
        Turn(role="user", text="Buche bitte den Flug."),
        Turn(role="tool", text="ok", tool=call, metadata={"nombre": "Lucía", "seats": 2}),
    ]
    redacted, counts = redact_dialogue(Dialogue(language="de", turns=turns))
    tool_turn = redacted.turns[1]
    assert tool_turn.tool is not None
    assert tool_turn.tool.arguments == {
        "passenger": "[NAME]",
        "cliente": "[NAME]",
        "name": "Economy",
    }
    assert tool_turn.metadata == {"nombre": "[NAME]", "seats": 2}
    assert counts == Counter({"name": 3})


def test_a_tool_result_that_is_json_is_redacted_as_json() -> None:
    """The key rule reaches results too, and an escaped name or e-mail is found: what the
    client library wrote with `json.dumps` (ASCII escapes) is read as its values."""
    result = {"order": "A-1043", "customer_name": "Maria Fernández", "mail": "joão@exemplo.pt"}
    call = ToolUse(name="lookup_order", arguments={"order": "A-1043"}, call_id="call_1")
    turns = [
        Turn(role="user", text="¿Dónde está mi pedido A-1043?"),
        Turn(role="tool", text=json.dumps(result), tool=call),
        Turn(role="tool", text=json.dumps({"status": "shipped"}), tool=call),
    ]
    redacted, counts = redact_dialogue(Dialogue(language="es", turns=turns))
    assert json.loads(redacted.turns[1].text) == {
        "order": "A-1043",
        "customer_name": "[NAME]",
        "mail": "[EMAIL]",
    }
    assert redacted.turns[2].text == turns[2].text  # nothing found: the text as logged
    assert counts == Counter(name=1, email=1)
    assert redact_dialogue(redacted) == (redacted, Counter())


@pytest.mark.parametrize(
    ("language", "sentence", "redacted"),
    [
        ("en", "Hi, I'm James Carter. How long?", "Hi, I'm [NAME]. How long?"),
        (
            "de",
            "Hallo, ich bin Lena Schmidt und möchte fliegen.",
            "Hallo, ich bin [NAME] und möchte fliegen.",
        ),
        ("es", "Hola, soy Carlos Méndez y vivo en Sevilla.", "Hola, soy [NAME] y vivo en Sevilla."),
        ("fr", "Bonjour, je suis Marie Dupont.", "Bonjour, je suis [NAME]."),
        ("pt", "Oi, aqui é a Mariana Costa.", "Oi, aqui é a [NAME]."),
        ("en", "I'm Canadian and I am happy to help.", None),
        ("de", "Ich bin Lehrer in Berlin.", None),
        ("es", "Soy Estudiante, no soy profesor.", None),
        ("fr", "Je suis Français.", None),
    ],
)
def test_a_name_after_a_weak_introduction_takes_two_capitalised_words(
    language: str, sentence: str, redacted: str | None
) -> None:
    assert redact_text(sentence, language)[0] == (redacted or sentence)


@pytest.mark.parametrize(
    "identifier",
    [
        "01234567-89ab-cdef-0123-456789abcdef",
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "RW-0612345678",
        "fr763000600001123456789012",  # an IBAN's shape and check digits, but a hex id's case
    ],
)
def test_the_digits_of_an_identifier_stay(identifier: str) -> None:
    text = f"trace {identifier} closed"
    assert redact_text(text, "fr") == (text, Counter())
