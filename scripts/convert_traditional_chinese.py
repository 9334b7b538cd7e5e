"""Write the Traditional Chinese judge prompts (`zh-Hant`) from the Simplified ones (`zh`).

`dialbench judge --prompt-language dialogue` asks a dialogue tagged zh-Hant, zh-TW, zh-HK or
zh-MO in the `zh-Hant` folder beside each protocol's English files. Its files are not translated
on their own: each is OpenCC's s2twp conversion of its `zh` file, Taiwan's standard characters
and its words (a JSON 物件, 資訊, 使用者, 工具呼叫), where s2t would keep the mainland's words in
Traditional characters (對象, 信息, 用戶, 調用; in Taiwan 對象 is a partner, not an object). The
conversion is done here and committed, so the package needs no OpenCC at run time, and a test
holds every `zh-Hant` file to the conversion of its `zh` file: run this after editing a `zh` one.

Usage: .venv/bin/python scripts/convert_traditional_chinese.py
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from opencc_purepy import OpenCC

from dialbench.judge.prompt_language import SHARED_PROMPTS
from dialbench.judge.registry import PROTOCOLS

SIMPLIFIED = "zh"
TRADITIONAL = "zh-Hant"
CONVERSION = "s2twp"


@cache
def _converter() -> OpenCC:
    return OpenCC(CONVERSION)


def traditional(text: str) -> str:
    """The Traditional Chinese of a Simplified Chinese text; ASCII (placeholders, JSON, label
    keys) and punctuation stay as they are."""
    return str(_converter().convert(text))


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
