"""Names from users' files in spreadsheets, markdown, plots and recorded model specs."""

from __future__ import annotations

import pandas as pd
import pytest

from dialbench.llm.backends.litellm import LiteLLMSettings
from dialbench.llm.http_client import url_with_path
from dialbench.llm.packaged import PackagedModel, PackagedModelError
from dialbench.llm.specs import ModelConfig, without_credentials
from dialbench.plotting import file_stem, plot_label
from dialbench.safe_text import (
    markdown_frame,
    markdown_text,
    short_text,
    spreadsheet_cell,
    spreadsheet_frame,
)


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_a_cell_that_would_start_a_formula_is_text(cell: str) -> None:
    assert spreadsheet_cell(cell) == "'" + cell


def test_other_cells_and_numbers_are_unchanged() -> None:
    assert [spreadsheet_cell(v) for v in ("qwen", "'=x", "", -1.5, None)] == [
        "qwen",
        "'=x",
        "",
        -1.5,
        None,
    ]
    frame = spreadsheet_frame(pd.DataFrame({"=rater": ["=HYPERLINK(1)", "ok"], "r": [-0.5, 1.0]}))
    assert list(frame.columns) == ["'=rater", "r"]
    assert frame.to_dict("list") == {"'=rater": ["'=HYPERLINK(1)", "ok"], "r": [-0.5, 1.0]}


def test_markdown_shows_html_links_and_pipes_as_text() -> None:
    assert markdown_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert markdown_text("[click](javascript:x) a|b `c`") == (
        "\\[click\\](javascript:x) a\\|b \\`c\\`"
    )
    assert markdown_text("two\nlines") == "two lines"
    assert markdown_text("gpt_4.1 中文 Größe") == "gpt_4.1 中文 Größe"
    frame = markdown_frame(pd.DataFrame({"<b>": ["<script>"], "n": [3]}))
    assert frame.to_dict("list") == {"&lt;b&gt;": ["&lt;script&gt;"], "n": [3]}


def test_plot_labels_lose_bidi_controls_and_keep_both_ends_of_long_names() -> None:
    assert plot_label("gpt\u202e-4.1\u2066x\u2069") == "gpt-4.1x"
    long = "openai-compat:http://gateway.internal.example:8000/v1#Qwen2.5-72B-Instruct"
    label = plot_label(long)
    assert len(label) == 28
    assert label.startswith("openai-compat")
    assert label.endswith("-72B-Instruct")
    assert "…" in label
    assert plot_label("中文评审模型") == "中文评审模型"


def test_file_stems_stay_in_their_folder() -> None:
    assert file_stem("../../etc/passwd") == "etc_passwd"
    assert file_stem("issues.lacks empathy") == "issues.lacks_empathy"
    assert file_stem("Verständlichkeit") == "Verständlichkeit"


@pytest.mark.parametrize(
    ("spec", "public"),
    [
        ("openai-compat:http://u:pw@h:8000/v1#m", "openai-compat:http://h:8000/v1#m"),
        ("openai-compat:https://tok@h/v1?api_key=k#m", "openai-compat:https://h/v1#m"),
        (
            "openai-compat:http://h/v1?api-version=2&access_token=t&x=1#m",
            "openai-compat:http://h/v1?api-version=2&x=1#m",
        ),
        ("local:qwen2.5-0.5b", "local:qwen2.5-0.5b"),
    ],
)
def test_specs_are_recorded_without_credentials(spec: str, public: str) -> None:
    assert without_credentials(spec) == public
    config = ModelConfig(spec=spec)
    assert config.spec == public
    assert "pw" not in config.model_dump_json()
    assert "pw@" not in repr(config)
    if config.parsed.backend == "openai-compat":
        assert config.endpoint_url == spec.removeprefix("openai-compat:").rsplit("#", 1)[0]


def test_a_base_url_setting_is_recorded_without_credentials() -> None:
    config = ModelConfig(spec="litellm:openai/m", base_url="http://u:pw@litellm/v1")
    assert "pw" not in config.model_dump_json()
    assert "pw@" not in repr(config)
    assert config.model_dump()["base_url"] == "http://litellm/v1"
    assert config.settings_as(LiteLLMSettings).base_url == "http://u:pw@litellm/v1"


def test_the_path_goes_before_the_query() -> None:
    assert url_with_path("http://h/v1/?key=k", "/chat") == "http://h/v1/chat?key=k"
    assert url_with_path("http://h:8/v1", "/chat") == "http://h:8/v1/chat"


def test_a_missing_packaged_model_leads_with_the_install_command() -> None:
    model = PackagedModel(
        name="m",
        title="M",
        filename="m.gguf",
        size=1,
        sha256="0",
        modules=tuple(f"missing_part_{i}" for i in range(22)),
        parts=tuple(f"p{i}" for i in range(22)),
        pip_extra="m-extra",
    )
    with pytest.raises(PackagedModelError) as raised:
        model.part_paths()
    assert str(raised.value) == (
        "model m is not installed: pip install 'dialbench[m-extra]' "
        "(22 of its 22 part packages are missing)"
    )


def test_a_short_text_is_one_line_cut_with_its_length() -> None:
    assert short_text("a\n\nb  c\x1b[31m", 20) == "a b c\\x1b[31m"  # no line, no escape
    assert short_text("word " * 10, 9) == "word word… [49 characters]"
    assert short_text("kurz", 4) == "kurz"
