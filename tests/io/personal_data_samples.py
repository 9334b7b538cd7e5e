"""Sentences with personal data planted in them, and sentences whose numbers are no personal data,
in the seven languages the redaction is tested in (used by the tests and the speed benchmark).

Every value is made up: the card numbers are the networks' test numbers or Luhn-completed
prefixes, the IBANs the registry's examples, the phone numbers of the fictional ranges where a
country has one (555-01xx, 07700 900xxx).
"""

from __future__ import annotations

# (language, kind, sentence, the value planted in it)
FOUND: list[tuple[str, str, str, str]] = [
    # English
    (
        "en",
        "email",
        "Please send the invoice to john.doe@example.com by Friday.",
        "john.doe@example.com",
    ),
    ("en", "email", "Write to josé.garcía@correo.es if the link fails.", "josé.garcía@correo.es"),
    ("en", "phone", "You can reach me on (415) 555-0132 after six.", "(415) 555-0132"),
    ("en", "phone", "My UK mobile is 07700 900123, text first.", "07700 900123"),
    ("en", "phone", "Call +1 415 555 0132 and ask for Pat.", "+1 415 555 0132"),
    ("en", "card", "My card number is 4111 1111 1111 1111, expiry 12/27.", "4111 1111 1111 1111"),
    ("en", "card", "Charge it to 5500-0000-0000-0004 please.", "5500-0000-0000-0004"),
    (
        "en",
        "account",
        "The refund goes to GB82 WEST 1234 5698 7654 32.",
        "GB82 WEST 1234 5698 7654 32",
    ),
    ("en", "account", "My account number is 31926819, sort code 40-47-84.", "31926819"),
    ("en", "name", "Hi, my name is Emily Clarke and I need help with my order.", "Emily Clarke"),
    ("en", "name", "Name: Oliver Bennett", "Oliver Bennett"),
    # German
    (
        "de",
        "email",
        "Schreiben Sie mir an jürgen.müller@beispiel.de, danke.",
        "jürgen.müller@beispiel.de",
    ),
    ("de", "email", "Meine Adresse ist anna.schmidt@firma-gmbh.de.", "anna.schmidt@firma-gmbh.de"),
    ("de", "phone", "Rufen Sie mich unter +49 30 1234567 an.", "+49 30 1234567"),
    ("de", "phone", "Meine Handynummer ist 0171 2345678, ab 18 Uhr.", "0171 2345678"),
    ("de", "phone", "Tel.: 030/12345678 (Zentrale)", "030/12345678"),
    ("de", "card", "Die Kreditkarte lautet 4012 8888 8888 1881.", "4012 8888 8888 1881"),
    (
        "de",
        "account",
        "Bitte überweisen Sie auf DE89 3704 0044 0532 0130 00.",
        "DE89 3704 0044 0532 0130 00",
    ),
    ("de", "account", "Meine Kontonummer ist 1234567890, BLZ bei der Bank erfragen.", "1234567890"),
    ("de", "name", "Hallo, ich heiße Jürgen Weber und habe eine Frage.", "Jürgen Weber"),
    ("de", "name", "Mein Name ist Anna von Sydow.", "Anna von Sydow"),
    # Spanish
    ("es", "email", "Mi correo es maría.lópez@correo.es, escríbeme.", "maría.lópez@correo.es"),
    ("es", "phone", "Mi móvil es 612 345 678, llámame por la tarde.", "612 345 678"),
    ("es", "phone", "Llame al +34 91 123 45 67 de lunes a viernes.", "+34 91 123 45 67"),
    ("es", "phone", "En México marca el 55 1234 5678.", "55 1234 5678"),
    ("es", "card", "Pagué con la tarjeta 5555 5555 5555 4444 ayer.", "5555 5555 5555 4444"),
    ("es", "account", "Mi IBAN es ES91 2100 0418 4502 0005 1332.", "ES91 2100 0418 4502 0005 1332"),
    ("es", "account", "El número de cuenta es 0049-1500-05-1234567892.", "0049-1500-05-1234567892"),
    ("es", "name", "Hola, me llamo Lucía Fernández.", "Lucía Fernández"),
    ("es", "name", "Mi nombre es Carlos del Río, gracias.", "Carlos del Río"),
    # French
    ("fr", "email", "Écrivez-moi à françois.dupont@exemple.fr.", "françois.dupont@exemple.fr"),
    ("fr", "phone", "Mon numéro est le 06 12 34 56 78.", "06 12 34 56 78"),
    ("fr", "phone", "Appelez le +33 1 23 45 67 89 avant midi.", "+33 1 23 45 67 89"),
    ("fr", "phone", "Standard : 01.23.45.67.89", "01.23.45.67.89"),
    ("fr", "card", "Ma carte bancaire : 4970 1012 3456 7893.", "4970 1012 3456 7893"),
    (
        "fr",
        "account",
        "Mon IBAN : FR76 3000 6000 0112 3456 7890 189.",
        "FR76 3000 6000 0112 3456 7890 189",
    ),
    ("fr", "account", "Le numéro de compte est 00012345678.", "00012345678"),
    ("fr", "name", "Bonjour, je m'appelle Céline Martin.", "Céline Martin"),
    ("fr", "name", "Je m’appelle Hugo, et vous ?", "Hugo"),
    # Portuguese
    (
        "pt",
        "email",
        "Meu e-mail é joão.silva@exemplo.com.br, obrigado.",
        "joão.silva@exemplo.com.br",
    ),
    ("pt", "phone", "Meu celular é (11) 91234-5678.", "(11) 91234-5678"),
    ("pt", "phone", "Ligue para +55 21 98765-4321 amanhã.", "+55 21 98765-4321"),
    ("pt", "phone", "O meu telemóvel é 912 345 678.", "912 345 678"),
    ("pt", "card", "O número do cartão é 4539 1488 0343 6467.", "4539 1488 0343 6467"),
    (
        "pt",
        "account",
        "O IBAN é PT50 0002 0123 1234 5678 9015 4.",
        "PT50 0002 0123 1234 5678 9015 4",
    ),
    ("pt", "account", "Minha conta é 1234567-8 na agência 0001.", "1234567-8"),
    ("pt", "name", "Olá, meu nome é João Pereira.", "João Pereira"),
    ("pt", "name", "Me chamo Ana Sousa e preciso de ajuda.", "Ana Sousa"),
    # Chinese
    ("zh", "email", "请发邮件到zhang.wei@example.com谢谢", "zhang.wei@example.com"),
    ("zh", "email", "我的邮箱是 李明@例子.中国，有事联系。", "李明@例子.中国"),
    ("zh", "phone", "我的手机号是138 0013 8000，请联系。", "138 0013 8000"),
    ("zh", "phone", "办公室电话：010-12345678", "010-12345678"),
    ("zh", "phone", "手机：１３９１２３４５６７８", "１３９１２３４５６７８"),
    ("zh", "card", "我的银行卡号是6212 3456 7890 1234 569。", "6212 3456 7890 1234 569"),
    ("zh", "card", "卡号４０００１２３４５６７８９０１７", "４０００１２３４５６７８９０１７"),
    ("zh", "account", "收款账号：6228480402564890018，户名见附件。", "6228480402564890018"),
    ("zh", "name", "你好，我叫王小明。", "王小明"),
    ("zh", "name", "我的名字是李华，来自上海。", "李华"),
    # Japanese
    (
        "ja",
        "email",
        "メールはtanaka.taro@example.co.jpまでお願いします。",
        "tanaka.taro@example.co.jp",
    ),
    ("ja", "email", "連絡先：yamada＠example.jp", "yamada＠example.jp"),
    ("ja", "phone", "携帯は090-1234-5678です。", "090-1234-5678"),
    ("ja", "phone", "電話番号：03-1234-5678（平日のみ）", "03-1234-5678"),
    ("ja", "phone", "０９０－１２３４－５６７８に電話してください。", "０９０－１２３４－５６７８"),
    ("ja", "card", "カード番号は3566 0020 2036 0505です。", "3566 0020 2036 0505"),
    ("ja", "account", "口座番号は1234567です。", "1234567"),
    ("ja", "account", "振込先口座：普通 ７６５４３２１", "７６５４３２１"),
    ("ja", "name", "私の名前は田中太郎です。", "田中太郎"),
    ("ja", "name", "山田花子と申します。", "山田花子"),
    ("ja", "name", "はじめまして、私は鈴木といいます。", "鈴木"),
]

# Sentences with years, prices, order numbers, dates, times and postcodes: left as they are.
KEPT: list[tuple[str, str]] = [
    ("en", "We moved here in 2019 and stayed until 2023."),
    ("en", "The laptop costs $1,299.99, or 1299 dollars with the coupon."),
    ("en", "Your order #100234987 ships on 2024-03-15."),
    ("en", "The meeting is at 14:30 on 03/15/2024, room 4.12."),
    ("en", "Order 4000 1234 5678 9011 was refunded; version 3.11.7 fixed the bug."),
    ("en", "The city had 8,336,817 people, and 1 in 10 took the 7:45 train."),
    ("de", "Im Jahr 2024 kostete es 1.299,00 €, also 1299 Euro."),
    ("de", "Ihre Bestellnummer lautet 100234987."),
    ("de", "Der Termin ist am 15.03.2024 um 14:30 Uhr, die Lieferung am 05.03.2024."),
    ("de", "Die PLZ ist 10115 Berlin, Hausnummer 12."),
    ("de", "Mein Konto hat 2500 Euro Guthaben, seit 2019."),
    ("es", "En 2023 el precio era de 1.250.000 euros."),
    ("es", "Su pedido número 204512 llegará el 15/03/2024."),
    ("es", "La reunión es a las 9:45 y nací el 3 de mayo de 1990."),
    ("es", "Me llamo la atención que costara 45,90 €."),
    ("fr", "En 2022, l'appartement coûtait 350 000 €."),
    ("fr", "Commande n° 2024-00123 livrée le 15/03/2024 à 14h30."),
    ("fr", "Rendez-vous le 05/03/2024 à 09:00, la ville compte 2 000 000 habitants."),
    ("pt", "Em 2021 o carro custava R$ 45.990,00."),
    ("pt", "Pedido 7845123 enviado em 15/03/2024 às 14:30, CEP 01310-100."),
    ("pt", "Ele conta 3 histórias por noite desde 2015."),
    ("zh", "2024年3月15日下午3点，订单号20240315008已发货。"),
    ("zh", "价格是¥12,800元，会议在14:30开始。"),
    ("zh", "我叫什么名字你还记得吗？２０２４年３月１５日见。"),
    ("ja", "2024年3月15日に注文番号A-123456を発送しました。"),
    ("ja", "価格は12,800円です。会議は14時30分からです。"),
    ("ja", "郵便番号は100-0001です。２０２４年３月１５日に届きます。"),
    ("ja", "お名前は面白いですね。サッカーは戦術が大事と言いますもんね。"),
]

# Everyday turns of a support chat, with no number in them.
PLAIN: list[tuple[str, str]] = [
    ("en", "Could you recommend a good book for a long train journey?"),
    ("en", "Sure! If you like mysteries, Agatha Christie's novels are a classic choice."),
    ("de", "Kannst du mir ein gutes Buch für eine lange Zugfahrt empfehlen?"),
    ("de", "Gern! Wenn Sie Krimis mögen, sind die Romane von Agatha Christie ein Klassiker."),
    ("es", "¿Me recomiendas un buen libro para un viaje largo en tren?"),
    ("es", "¡Claro! Si te gustan los misterios, las novelas de Agatha Christie son un clásico."),
    ("fr", "Peux-tu me conseiller un bon livre pour un long voyage en train ?"),
    ("fr", "Bien sûr ! Si vous aimez les énigmes, les romans d'Agatha Christie sont un classique."),
    ("pt", "Podes recomendar-me um bom livro para uma longa viagem de comboio?"),
    ("pt", "Claro! Se gosta de mistério, os romances de Agatha Christie são um clássico."),
    ("zh", "你能推荐一本适合长途火车旅行的好书吗？"),
    ("zh", "当然！如果你喜欢推理小说，阿加莎·克里斯蒂的作品是经典之选。"),
    ("ja", "長い電車の旅におすすめの本はありますか？"),
    ("ja", "もちろんです！ミステリーがお好きなら、アガサ・クリスティの小説は定番です。"),
]
