"""The eight scripted chatbot conversations that every capture replays.

Each conversation is a chat app talking to an OpenAI-compatible model: a system prompt, then
user turns; the model (the loopback server in `server.py`) answers each either with text or
with tool calls, which the app runs locally (`run_tool`) and answers with `role: tool`
messages before calling the model again. The server picks its reply from the request alone:
which conversation it is (the system prompt, `conversation_of`) and how many assistant messages
the request already holds (`reply_for`). So the content, the tool-call ids and the order are
the same on every run.

Counting as dialbench does (a user message is a user turn, an assistant message with text one
assistant turn, an assistant message with only tool calls none, each tool call one tool turn),
the eight make `EXPECTED_TURNS` (64) turns, `EXPECTED_TOOL_TURNS` (8) of them tool turns; one
reply makes two parallel tool calls (`c2`), and one conversation is streamed (`c3`).

No conversation carries an id by default: `Conversation.id` is passed only by the captures
that exercise a library's session setting.

Every personal datum planted (in user turns, tool arguments and tool results) is listed in
`PLANTED_PERSONAL_DATA`; the assistant's replies repeat none of them. All are made up: phone
numbers from the fictional ranges where a country has one, IBANs the registries' examples.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# --- tools the model is given ---------------------------------------------------------------

TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "lookup_order": {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Look up an order of the shop by its order number.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "description": "e.g. A-1043"}},
                "required": ["order_id"],
            },
        },
    },
    "check_weather": {
        "type": "function",
        "function": {
            "name": "check_weather",
            "description": "The weather forecast for a city on a date.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "date": {"type": "string", "description": "YYYY-MM-DD"},
                },
                "required": ["city", "date"],
            },
        },
    },
    "lookup_booking": {
        "type": "function",
        "function": {
            "name": "lookup_booking",
            "description": "Look up a flight booking by its booking reference.",
            "parameters": {
                "type": "object",
                "properties": {"booking_ref": {"type": "string"}},
                "required": ["booking_ref"],
            },
        },
    },
    "book_table": {
        "type": "function",
        "function": {
            "name": "book_table",
            "description": "Reserve a table at the restaurant.",
            "parameters": {
                "type": "object",
                "properties": {
                    "date": {"type": "string", "description": "YYYY-MM-DD"},
                    "time": {"type": "string", "description": "HH:MM"},
                    "party_size": {"type": "integer"},
                    "name": {"type": "string"},
                },
                "required": ["date", "time", "party_size", "name"],
            },
        },
    },
    "lookup_invoice": {
        "type": "function",
        "function": {
            "name": "lookup_invoice",
            "description": "Look up an invoice by its number.",
            "parameters": {
                "type": "object",
                "properties": {"invoice_id": {"type": "string"}},
                "required": ["invoice_id"],
            },
        },
    },
    "lookup_reservation": {
        "type": "function",
        "function": {
            "name": "lookup_reservation",
            "description": "Look up a hotel reservation by its reference.",
            "parameters": {
                "type": "object",
                "properties": {"reservation_id": {"type": "string"}},
                "required": ["reservation_id"],
            },
        },
    },
}

# What the fake local tools return, by (tool, the one argument that picks the record).
_TOOL_RESULTS: dict[tuple[str, str], dict[str, Any]] = {
    ("lookup_order", "A-1043"): {
        "order": "A-1043",
        "item": "Trailblazer hiking boots, size 39",
        "customer_name": "Emily Clarke",
        "shipping_email": "e.clarke.home@example.net",
        "status": "shipped",
        "carrier": "DPD",
        "estimated_delivery": "2025-06-12",
    },
    ("check_weather", "Chicago"): {
        "city": "Chicago",
        "date": "2025-06-13",
        "forecast": "light rain in the afternoon",
        "high_c": 19,
        "low_c": 12,
    },
    ("lookup_booking", "QX7P2L"): {
        "booking_ref": "QX7P2L",
        "passenger": "James Carter",
        "email": "j.carter@example.org",
        "phone": "+1 617 555 0142",
        "flight": "UA 1187",
        "departure": "2025-06-13T09:40",
        "seat": "14C",
    },
    ("book_table", "2025-06-14"): {
        "confirmation": "R-5521",
        "restaurant": "Zum Goldenen Hirsch",
        "guest_name": "Jonas Becker",
        "phone_on_file": "+49 171 2345678",
        "table": 12,
        "status": "confirmed",
    },
    ("lookup_invoice", "F-2024-0387"): {
        "invoice": "F-2024-0387",
        "holder": "Camille Dubois",
        "email": "camille.dubois@exemple.fr",
        "amount_eur": 84.2,
        "period": "2025-04",
        "status": "unpaid",
    },
    ("lookup_order", "A-2210"): {
        "order": "A-2210",
        "customer_name": "Maria Fernández",
        "contact_phone": "+34 612 345 678",
        "status": "shipped",
    },
    ("lookup_reservation", "H-7788"): {
        "reservation": "H-7788",
        "guest": "João Silva",
        "phone": "+351 912 345 678",
        "check_in": "2025-07-02",
        "nights": 3,
        "status": "confirmed",
    },
    ("lookup_order", "B-3307"): {
        "order": "B-3307",
        "item": "电饭煲",
        "recipient": "王小明",
        "phone": "+86 138 0013 8000",
        "status": "配送中",
    },
}


def run_tool(name: str, arguments: str) -> dict[str, Any]:
    """The app's fake local tool: its JSON result, picked by the tool and its arguments."""
    args = json.loads(arguments or "{}")
    key = args.get("order_id") or args.get("city") or args.get("booking_ref")
    key = key or args.get("date") or args.get("invoice_id") or args.get("reservation_id")
    found = _TOOL_RESULTS.get((name, str(key)))
    return found if found is not None else {"error": f"no record for {key!r}"}


# --- the scripts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One tool call the model makes: a fixed id, the tool, its arguments (a JSON object)."""

    id: str
    name: str
    arguments: dict[str, Any]

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """One model response: text, or tool calls (several at once are parallel calls)."""

    text: str | None = None
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class UserTurn:
    text: str
    # The model's responses to this turn in order: any tool-call responses, then one text.
    replies: tuple[Reply, ...]


@dataclass(frozen=True)
class Conversation:
    key: str  # c1 .. c8
    id: str  # the conversation / session id, passed only where a capture says so
    language: str
    system: str
    tools: tuple[str, ...]
    turns: tuple[UserTurn, ...]
    stream: bool = False
    user: str | None = field(default=None)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [TOOL_SCHEMAS[name] for name in self.tools]

    def replies(self) -> list[Reply]:
        return [reply for turn in self.turns for reply in turn.replies]


def _say(text: str) -> Reply:
    return Reply(text=text)


def _call(*calls: Call) -> Reply:
    return Reply(calls=calls)


CONVERSATIONS: tuple[Conversation, ...] = (
    Conversation(
        key="c1",
        id="conv-c1-en-order",
        language="en",
        system=(
            "You are the customer support assistant of Northwind Outfitters, an online outdoor "
            "shop. Answer briefly and politely. Use lookup_order to check an order."
        ),
        tools=("lookup_order",),
        turns=(
            UserTurn(
                "Hi, my name is Emily Clarke and I ordered hiking boots last week, order "
                "A-1043. Can you tell me where it is?",
                (
                    _call(Call("call_c1_1", "lookup_order", {"order_id": "A-1043"})),
                    _say(
                        "Your order A-1043 has shipped with DPD and should arrive on "
                        "12 June. Is there anything else I can help with?"
                    ),
                ),
            ),
            UserTurn(
                "Great. Could you send the tracking link to emily.clarke@example.com instead "
                "of the address on the order?",
                (
                    _say(
                        "Done: the tracking link will go to the new e-mail address you gave "
                        "me. It may take a few minutes to arrive."
                    ),
                ),
            ),
            UserTurn(
                "Also, if the courier needs to call me, my mobile number is +44 7700 900123.",
                (
                    _say(
                        "Thank you, I have added the mobile number to the delivery notes so "
                        "the courier can reach you."
                    ),
                ),
            ),
            UserTurn(
                "That's all I needed, thank you very much for the quick help today!",
                (_say("You're welcome! Enjoy your new boots and have a great hike."),),
            ),
        ),
    ),
    Conversation(
        key="c2",
        id="conv-c2-en-travel",
        language="en",
        system=(
            "You are a travel assistant for business travellers. Use check_weather for "
            "forecasts and lookup_booking for flight bookings. Keep answers short."
        ),
        tools=("check_weather", "lookup_booking"),
        turns=(
            UserTurn(
                "I'm flying to Chicago on Friday, booking reference QX7P2L. What's the weather "
                "there, and is my seat confirmed?",
                (
                    _call(
                        Call(
                            "call_c2_1",
                            "check_weather",
                            {"city": "Chicago", "date": "2025-06-13"},
                        ),
                        Call("call_c2_2", "lookup_booking", {"booking_ref": "QX7P2L"}),
                    ),
                    _say(
                        "Your flight UA 1187 on Friday at 9:40 is confirmed, seat 14C. In "
                        "Chicago expect light rain in the afternoon, between 12 and 19 °C."
                    ),
                ),
            ),
            UserTurn(
                "My colleague wants to join me on the same flight. Her e-mail is "
                "priya.natarajan@example.com, can you add her?",
                (
                    _say(
                        "I can't change bookings myself, but I have passed the request to "
                        "the travel desk; they will write to your colleague today."
                    ),
                ),
            ),
            UserTurn(
                "Okay. When should I leave for the airport if the flight is at 9:40 in the "
                "morning?",
                (
                    _say(
                        "For a domestic flight at 9:40, plan to be at the airport by 8:10, so "
                        "leave about an hour before that."
                    ),
                ),
            ),
            UserTurn(
                "Perfect, that's really helpful. Thanks a lot for sorting all of this out.",
                (_say("You're welcome. Have a good trip to Chicago!"),),
            ),
        ),
    ),
    Conversation(
        key="c3",
        id="conv-c3-de-restaurant",
        language="de",
        system=(
            "Du bist der Reservierungsassistent des Restaurants Zum Goldenen Hirsch in "
            "München. Antworte freundlich und knapp. Reserviere Tische mit book_table."
        ),
        tools=("book_table",),
        stream=True,
        turns=(
            UserTurn(
                "Hallo, ich heiße Jonas Becker und möchte für Samstagabend einen Tisch für "
                "vier Personen reservieren, am liebsten um 19 Uhr.",
                (
                    _call(
                        Call(
                            "call_c3_1",
                            "book_table",
                            {
                                "date": "2025-06-14",
                                "time": "19:00",
                                "party_size": 4,
                                "name": "Jonas Becker",
                            },
                        )
                    ),
                    _say(
                        "Ihr Tisch für vier Personen am Samstag um 19 Uhr ist reserviert, "
                        "die Bestätigungsnummer lautet R-5521. Wir freuen uns auf Sie!"
                    ),
                ),
            ),
            UserTurn(
                "Danke! Für die Anzahlung: Meine IBAN ist DE89 3704 0044 0532 0130 00, können "
                "Sie die 20 Euro davon abbuchen?",
                (
                    _say(
                        "Eine Anzahlung ist bei uns nicht nötig, wir buchen also nichts ab. "
                        "Sie bezahlen einfach am Abend vor Ort."
                    ),
                ),
            ),
            UserTurn(
                "Falls etwas dazwischenkommt, erreichen Sie mich unter 0171 2345678 oder per "
                "E-Mail an jonas.becker@beispiel.de.",
                (
                    _say(
                        "Vielen Dank, ich habe Ihre Kontaktdaten bei der Reservierung "
                        "hinterlegt. Wir melden uns nur, falls sich etwas ändert."
                    ),
                ),
            ),
            UserTurn(
                "Super, dann freue ich mich auf Samstag. Vielen Dank für die schnelle Hilfe "
                "und bis bald!",
                (_say("Sehr gern! Bis Samstag und einen schönen Tag noch."),),
            ),
        ),
    ),
    Conversation(
        key="c4",
        id="conv-c4-fr-invoice",
        language="fr",
        system=(
            "Tu es l'assistant du service client d'Énergie Claire, un fournisseur "
            "d'électricité. Réponds poliment et brièvement. Utilise lookup_invoice."
        ),
        tools=("lookup_invoice",),
        turns=(
            UserTurn(
                "Bonjour, je m'appelle Camille Dubois et je ne comprends pas le montant de ma "
                "dernière facture, la F-2024-0387.",
                (
                    _call(Call("call_c4_1", "lookup_invoice", {"invoice_id": "F-2024-0387"})),
                    _say(
                        "Votre facture F-2024-0387 d'avril s'élève à 84,20 € et n'est pas "
                        "encore réglée. Elle couvre votre consommation du mois entier."
                    ),
                ),
            ),
            UserTurn(
                "Je voudrais la payer par prélèvement automatique, mon IBAN est FR76 3000 6000 "
                "0112 3456 7890 189.",
                (
                    _say(
                        "C'est noté : le prélèvement automatique sera mis en place à partir "
                        "de la prochaine facture. Vous recevrez un mandat à signer."
                    ),
                ),
            ),
            UserTurn(
                "Vous pouvez aussi me rappeler au 06 12 34 56 78 demain matin si vous avez "
                "besoin d'autre chose.",
                (
                    _say(
                        "Merci, un conseiller vous rappellera demain matin si nécessaire pour "
                        "finaliser le mandat."
                    ),
                ),
            ),
            UserTurn(
                "Merci beaucoup pour votre aide, c'est beaucoup plus clair maintenant. Bonne "
                "journée à vous !",
                (_say("Avec plaisir, très bonne journée à vous aussi !"),),
            ),
        ),
    ),
    Conversation(
        key="c5",
        id="conv-c5-es-order",
        language="es",
        system=(
            "Eres el asistente de atención al cliente de una tienda de electrónica online. "
            "Responde de forma breve y amable. Usa lookup_order para consultar pedidos."
        ),
        tools=("lookup_order",),
        turns=(
            UserTurn(
                "Hola, hice un pedido hace una semana, el número es A-2210, y todavía no ha "
                "llegado. ¿Me puedes ayudar?",
                (
                    _call(Call("call_c5_1", "lookup_order", {"order_id": "A-2210"})),
                    _say(
                        "Tu pedido A-2210 ya ha sido enviado y debería llegar en los próximos "
                        "dos días laborables."
                    ),
                ),
            ),
            UserTurn(
                "Vale, gracias. Si hay algún problema con la entrega, escríbeme a "
                "maria.fernandez@correo.es, por favor.",
                (
                    _say(
                        "De acuerdo, si surge cualquier incidencia con la entrega te "
                        "escribiremos a esa dirección."
                    ),
                ),
            ),
            UserTurn(
                "Muchas gracias por la información, que tengas un buen día.",
                (_say("¡Gracias a ti! Que disfrutes de tu compra."),),
            ),
        ),
    ),
    Conversation(
        key="c6",
        id="conv-c6-pt-hotel",
        language="pt",
        system=(
            "Você é o assistente de reservas do Hotel Miradouro em Lisboa. Responda de forma "
            "cordial e breve. Use lookup_reservation para consultar reservas."
        ),
        tools=("lookup_reservation",),
        turns=(
            UserTurn(
                "Olá, meu nome é João Silva e queria confirmar a minha reserva H-7788 no "
                "hotel para o início de julho.",
                (
                    _call(Call("call_c6_1", "lookup_reservation", {"reservation_id": "H-7788"})),
                    _say(
                        "A sua reserva H-7788 está confirmada: entrada a 2 de julho, três "
                        "noites. Estamos à sua espera!"
                    ),
                ),
            ),
            UserTurn(
                "Pode enviar a fatura para joao.silva@exemplo.pt? Preciso dela para o "
                "reembolso da empresa.",
                (
                    _say(
                        "Claro, a fatura será enviada para esse endereço de e-mail depois do "
                        "check-out."
                    ),
                ),
            ),
            UserTurn(
                "Obrigado, foi muito útil. Até breve e tenha um ótimo dia!",
                (_say("Nós é que agradecemos. Até julho e boa viagem!"),),
            ),
        ),
    ),
    Conversation(
        key="c7",
        id="conv-c7-zh-order",
        language="zh",
        system=(
            "你是一家网上商城的客服助手。请用简洁礼貌的中文回答。需要查询订单时使用 lookup_order。"
        ),
        tools=("lookup_order",),
        turns=(
            UserTurn(
                "你好，我叫王小明，我上周买了一个电饭煲，订单号是B-3307，请问现在到哪里了？",
                (
                    _call(Call("call_c7_1", "lookup_order", {"order_id": "B-3307"})),
                    _say("您的订单B-3307正在配送中，预计明天送达，请保持电话畅通。"),
                ),
            ),
            UserTurn(
                "如果快递员联系不上我，请打我的手机13800138000，或者发邮件到xiaoming.wang@example.cn。",
                (_say("好的，我已经把您的联系方式备注在订单上了，快递员会按需联系您。"),),
            ),
            UserTurn(
                "好的，非常感谢你的帮助，祝你今天工作顺利，生活愉快！",
                (_say("不客气，也祝您生活愉快！有问题随时联系我们。"),),
            ),
        ),
    ),
    Conversation(
        key="c8",
        id="conv-c8-ja-hotel",
        language="ja",
        system="あなたは出張者向けの旅行アシスタントです。丁寧かつ簡潔に日本語で答えてください。",
        tools=("check_weather",),
        turns=(
            UserTurn(
                "こんにちは、田中花子と申します。来月の東京出張のために、ホテルの予約について相談したいです。",
                (
                    _say(
                        "承知しました。ご希望の日程とエリア、ご予算を教えていただければ、"
                        "おすすめのホテルをご案内します。"
                    ),
                ),
            ),
            UserTurn(
                "連絡先はメールが hanako.tanaka@example.jp で、電話番号は090-1234-5678です。"
                "よろしくお願いします。",
                (
                    _say(
                        "ありがとうございます。ご連絡先を控えました。候補がまとまり次第、"
                        "メールでお送りします。"
                    ),
                ),
            ),
            UserTurn(
                "ありがとうございます。とても助かりました。また何かあれば連絡します。",
                (_say("どういたしまして。良い出張になりますように。"),),
            ),
        ),
    ),
)

BY_KEY = {c.key: c for c in CONVERSATIONS}
_BY_SYSTEM = {c.system: c for c in CONVERSATIONS}

MODEL = "gpt-4o-mini-2024-07-18"

# What dialbench should count once the eight are imported.
EXPECTED_DIALOGUES = len(CONVERSATIONS)
EXPECTED_USER_TURNS = sum(len(c.turns) for c in CONVERSATIONS)
EXPECTED_ASSISTANT_TURNS = sum(1 for c in CONVERSATIONS for r in c.replies() if r.text)
EXPECTED_TOOL_TURNS = sum(len(r.calls) for c in CONVERSATIONS for r in c.replies())
EXPECTED_TURNS = EXPECTED_USER_TURNS + EXPECTED_ASSISTANT_TURNS + EXPECTED_TOOL_TURNS
# Per conversation: (user, assistant, tool) turns.
EXPECTED_TURNS_BY_CONVERSATION = {
    c.key: (
        len(c.turns),
        sum(1 for r in c.replies() if r.text),
        sum(len(r.calls) for r in c.replies()),
    )
    for c in CONVERSATIONS
}
TOOL_CALL_IDS = tuple(call.id for c in CONVERSATIONS for r in c.replies() for call in r.calls)

# Every personal datum planted in the user turns, tool arguments and tool results, as written.
PLANTED_PERSONAL_DATA: tuple[str, ...] = (
    # c1 en
    "Emily Clarke",
    "emily.clarke@example.com",
    "+44 7700 900123",
    "e.clarke.home@example.net",
    # c2 en
    "James Carter",
    "j.carter@example.org",
    "+1 617 555 0142",
    "priya.natarajan@example.com",
    # c3 de
    "Jonas Becker",
    "DE89 3704 0044 0532 0130 00",
    "0171 2345678",
    "jonas.becker@beispiel.de",
    "+49 171 2345678",
    # c4 fr
    "Camille Dubois",
    "camille.dubois@exemple.fr",
    "FR76 3000 6000 0112 3456 7890 189",
    "06 12 34 56 78",
    # c5 es
    "Maria Fernández",
    "+34 612 345 678",
    "maria.fernandez@correo.es",
    # c6 pt
    "João Silva",
    "+351 912 345 678",
    "joao.silva@exemplo.pt",
    # c7 zh
    "王小明",
    "+86 138 0013 8000",
    "13800138000",
    "xiaoming.wang@example.cn",
    # c8 ja
    "田中花子",
    "hanako.tanaka@example.jp",
    "090-1234-5678",
)


def conversation_of(messages: list[dict[str, Any]]) -> Conversation:
    """The conversation a request belongs to, by its system prompt."""
    for message in messages:
        if message.get("role") in ("system", "developer"):
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            found = _BY_SYSTEM.get(content)
            if found is not None:
                return found
    raise LookupError("no scripted conversation has this system prompt")


def reply_for(messages: list[dict[str, Any]]) -> tuple[Conversation, int, Reply]:
    """The scripted reply to a request: its conversation, the reply's index, the reply."""
    conversation = conversation_of(messages)
    index = sum(1 for m in messages if m.get("role") == "assistant")
    replies = conversation.replies()
    if index >= len(replies):
        raise LookupError(f"{conversation.key} has only {len(replies)} replies")
    return conversation, index, replies[index]


def _check() -> None:
    assert EXPECTED_DIALOGUES == 8
    assert EXPECTED_TURNS == 64, EXPECTED_TURNS
    assert EXPECTED_TOOL_TURNS == 8, EXPECTED_TOOL_TURNS
    assert len(set(TOOL_CALL_IDS)) == len(TOOL_CALL_IDS)
    assert sorted({c.language for c in CONVERSATIONS}) == sorted(
        {"en", "de", "fr", "es", "pt", "zh", "ja"}
    )
    assert sum(1 for c in CONVERSATIONS for r in c.replies() if len(r.calls) > 1) == 1
    assert sum(1 for c in CONVERSATIONS if c.stream) == 1
    for conversation in CONVERSATIONS:
        for reply in conversation.replies():
            if reply.text:
                assert not any(d in reply.text for d in PLANTED_PERSONAL_DATA), reply.text
            for call in reply.calls:
                assert "error" not in run_tool(call.name, call.arguments_json), call
    texts = [t.text for c in CONVERSATIONS for t in c.turns]
    texts += [json.dumps(v, ensure_ascii=False) for v in _TOOL_RESULTS.values()]
    for datum in PLANTED_PERSONAL_DATA:
        assert any(datum in t for t in texts), datum


_check()
