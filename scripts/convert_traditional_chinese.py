"""Write the Traditional Chinese judge prompts (`zh-Hant`) from the Simplified ones (`zh`).

`dialbench judge --prompt-language dialogue` asks a dialogue tagged zh-Hant, zh-TW, zh-HK or
zh-MO in the `zh-Hant` folder beside each protocol's English files. Its files are not translated
on their own: each is OpenCC's s2twp conversion of its `zh` file, Taiwan's standard characters
and its words (a JSON 物件, 資訊, 使用者, 工具呼叫), where s2t would keep the mainland's words in
Traditional characters (對象, 信息, 用戶, 調用; in Taiwan 對象 is a partner, not an object), then
`TAIWAN_TERMS`: the words of these prompts that s2twp leaves as the mainland writes them. No
OpenCC configuration or dictionary makes those changes (its phrase tables keep 質量, which is
"quality" only on the mainland, and are written for any text), so they are a table here, each
with its reason. The conversion is done here and committed, so the package needs no OpenCC at
run time, and a test holds every `zh-Hant` file to the conversion of its `zh` file: run this
after editing a `zh` one.

Usage: .venv/bin/python scripts/convert_traditional_chinese.py
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from opencc_purepy import OpenCC

from dialbench.judge.prompt_language import SHARED_PROMPTS
from dialbench.judge.registry import PROTOCOLS

SIMPLIFIED = "zh"
TRADITIONAL = "zh-Hant"
CONVERSION = "s2twp"


@dataclass(frozen=True)
class TaiwanTerm:
    """A word s2twp writes in these prompts as the mainland does, and Taiwan's for it."""

    mainland: str
    taiwan: str
    reason: str


TAIWAN_TERMS = (
    TaiwanTerm("質量", "品質", "quality; in Taiwan 質量 is physical mass"),
    TaiwanTerm(
        "回復",
        "回覆",
        "a reply; 回復 is to recover or restore. s2twp writes 回覆 for 回复, but reads 该回复 as "
        "该回 + 复 and gives 复 its first reading, 復",
    ),
    TaiwanTerm("共情", "同理心", "empathy; 共情 is the mainland's term (the labels say 同理心)"),
    TaiwanTerm("總體", "整體", "overall; in Taiwan 總體 is macro-, as in 總體經濟"),
    TaiwanTerm("開放域", "開放領域", "open-domain; a domain of knowledge is a 領域 in Taiwan"),
    TaiwanTerm("AI助手", "AI助理", "an AI assistant is an AI 助理 in Taiwan"),
    TaiwanTerm("返回", "傳回", "what a call returns is 傳回; 返回 is to go back"),
    TaiwanTerm("文本", "文字", "text written out is 文字; 文本 is a text read as a work"),
)


@cache
def _converter() -> OpenCC:
    return OpenCC(CONVERSION)


def opencc_traditional(text: str) -> str:
    """OpenCC's s2twp of a Simplified Chinese text; ASCII (placeholders, JSON, label keys) and
    punctuation stay as they are."""
    return str(_converter().convert(text))


def traditional(text: str) -> str:
    """The Traditional Chinese of a Simplified Chinese text: s2twp, then Taiwan's terms."""
    converted = opencc_traditional(text)
    for term in TAIWAN_TERMS:
        converted = converted.replace(term.mainland, term.taiwan)
    return converted


def simplified_files() -> list[Path]:
    """Every Simplified Chinese file of the shared judge prompts and of each protocol."""
    packages = [SHARED_PROMPTS, *(PROTOCOLS.load(name).__module__ for name in PROTOCOLS)]
    folders = [Path(str(resources.files(package))) / SIMPLIFIED for package in packages]
    return sorted(file for folder in folders if folder.is_dir() for file in folder.iterdir())


def traditional_path(simplified: Path) -> Path:
    return simplified.parent.parent / TRADITIONAL / simplified.name


def main() -> None:
    for simplified in simplified_files():
        target = traditional_path(simplified)
        target.parent.mkdir(exist_ok=True)
        target.write_text(traditional(simplified.read_text(encoding="utf-8")), encoding="utf-8")
        print(target)


if __name__ == "__main__":
    main()
