"""A small chatbot as teams write them: it answers questions about a city library from a handful
of documents, in English, German, Spanish and Chinese, and says what it can help with otherwise.

dialbench calls `reply` for each chatbot turn (`--chatbot python:faq_bot:reply`); `service.py`
serves the same answers over HTTP, keeping each session's history itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from dialbench.llm.bots import BotRequest


@dataclass(frozen=True)
class Document:
    topic: str
    keywords: tuple[str, ...]
    answers: dict[str, str]


DOCUMENTS = (
    Document(
        "hours",
        (
            "open",
            "hour",
            "close",
            "sunday",
            "öffnungszeit",
            "geöffnet",
            "horario",
            "abre",
            "开门",
            "几点",
            "时间",
        ),
        {
            "en": "We are open Monday to Friday 9:00-20:00 and Saturday 10:00-16:00.",
            "de": "Wir haben Montag bis Freitag 9-20 Uhr und Samstag 10-16 Uhr geöffnet.",
            "es": "Abrimos de lunes a viernes de 9:00 a 20:00 y los sábados de 10:00 a 16:00.",
            "zh": "我们周一至周五 9:00-20:00 开放，周六 10:00-16:00 开放。",
        },
    ),
    Document(
        "card",
        (
            "card",
            "member",
            "sign up",
            "register",
            "ausweis",
            "anmelden",
            "tarjeta",
            "socio",
            "借书证",
            "办卡",
            "会员",
        ),
        {
            "en": "A library card is free: bring an ID to the front desk and it takes five minutes.",
            "de": "Der Bibliotheksausweis ist kostenlos: Bringen Sie einen Ausweis zur Theke mit.",
            "es": "La tarjeta es gratuita: trae un documento de identidad al mostrador.",
            "zh": "借书证免费：带身份证件到服务台，五分钟即可办好。",
        },
    ),
    Document(
        "loans",
        (
            "borrow",
            "return",
            "renew",
            "late",
            "book",
            "ausleihen",
            "zurückgeben",
            "buch",
            "préstamo",
            "devolver",
            "libro",
            "借",
            "还书",
            "续借",
            "书",
        ),
        {
            "en": "You can borrow up to 10 books for three weeks and renew them twice online.",
            "de": "Sie können bis zu 10 Bücher für drei Wochen ausleihen und zweimal verlängern.",
            "es": "Puedes llevarte hasta 10 libros durante tres semanas y renovarlos dos veces.",
            "zh": "每次最多可借 10 本书，借期三周，可在网上续借两次。",
        },
    ),
    Document(
        "wifi",
        (
            "wifi",
            "wi-fi",
            "internet",
            "wlan",
            "password",
            "passwort",
            "contraseña",
            "网络",
            "密码",
            "上网",
        ),
        {
            "en": "The Wi-Fi network is 'Library-Guest'; the password is on the board at the entrance.",
            "de": "Das WLAN heißt 'Library-Guest'; das Passwort steht am Eingang.",
            "es": "La red wifi es 'Library-Guest'; la contraseña está en el tablón de la entrada.",
            "zh": "无线网络名为 Library-Guest，密码贴在入口处的公告板上。",
        },
    ),
    Document(
        "events",
        (
            "event",
            "reading",
            "children",
            "club",
            "veranstaltung",
            "lesung",
            "kinder",
            "evento",
            "niños",
            "活动",
            "讲座",
            "孩子",
        ),
        {
            "en": "Every Saturday at 11:00 there is a reading for children, and a book club on "
            "the first Thursday of the month.",
            "de": "Samstags um 11 Uhr gibt es eine Kinderlesung, und am ersten Donnerstag im "
            "Monat einen Buchclub.",
            "es": "Los sábados a las 11:00 hay lectura para niños y el primer jueves de cada "
            "mes, un club de lectura.",
            "zh": "每周六 11:00 有儿童阅读活动，每月第一个周四有读书会。",
        },
    ),
)
FALLBACK = {
    "en": "I can help with the library's opening hours, library cards, borrowing books, Wi-Fi "
    "and events. What would you like to know?",
    "de": "Ich helfe gern bei Öffnungszeiten, Bibliotheksausweis, Ausleihe, WLAN und "
    "Veranstaltungen. Was möchten Sie wissen?",
    "es": "Puedo ayudarte con el horario, la tarjeta, los préstamos, el wifi y los eventos de "
    "la biblioteca. ¿Qué quieres saber?",
    "zh": "我可以回答图书馆开放时间、借书证、借还书、无线网络和活动方面的问题。你想了解什么？",
}


def answer(question: str, language: str | None, earlier: list[str] | None = None) -> str:
    """The answer of the document whose keywords the question (or, failing that, the earlier
    questions of the conversation) mentions most; otherwise what the bot can help with."""
    language = language if language in FALLBACK else "en"
    for text in [question, *reversed(earlier or [])]:
        lowered = text.lower()
        scored = [(sum(k in lowered for k in d.keywords), d) for d in DOCUMENTS]
        best, document = max(scored, key=lambda pair: pair[0])
        if best:
            return document.answers[language]
    return FALLBACK[language]


def reply(request: BotRequest) -> str:
    """The chatbot's turn: dialbench passes the dialogue so far, its id and its language."""
    earlier = [m.content for m in request.messages[:-1] if m.role == "user"]
    return answer(request.last_user_message, request.language, earlier)
