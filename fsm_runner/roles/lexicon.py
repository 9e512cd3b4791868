"""Words the offline roles understand, in English and Chinese.

Role words name a kind of widget, ordinal words pick one of several, state
words pick by a flag, relation words anchor a target to another element.
``fold`` makes text case- and width-insensitive so that "ＬＯＧＩＮ" and
"login" compare equal.
"""

from __future__ import annotations

import re
import unicodedata

#: Role word in a description -> the roles of ``Element.role`` it may mean.
ROLE_WORDS: dict[str, frozenset[str]] = {
    "button": frozenset({"button"}),
    "btn": frozenset({"button"}),
    "key": frozenset({"button"}),
    "field": frozenset({"field"}),
    "input": frozenset({"field"}),
    "textbox": frozenset({"field"}),
    "box": frozenset({"field", "checkbox"}),
    "edit": frozenset({"field"}),
    "switch": frozenset({"switch"}),
    "toggle": frozenset({"switch", "checkbox"}),
    "checkbox": frozenset({"checkbox"}),
    "check": frozenset({"checkbox"}),
    "radio": frozenset({"radio"}),
    "option": frozenset({"radio", "checkbox", "button"}),
    "icon": frozenset({"image", "button"}),
    "image": frozenset({"image"}),
    "picture": frozenset({"image"}),
    "tab": frozenset({"tab"}),
    "link": frozenset({"text", "button"}),
    "label": frozenset({"text"}),
    "text": frozenset({"text"}),
    "title": frozenset({"text"}),
    "list": frozenset({"list"}),
    "row": frozenset({"button", "row"}),
    "item": frozenset({"button", "row", "text"}),
    "按钮": frozenset({"button"}),
    "键": frozenset({"button"}),
    "输入框": frozenset({"field"}),
    "文本框": frozenset({"field"}),
    "搜索框": frozenset({"field"}),
    "框": frozenset({"field", "checkbox"}),
    "开关": frozenset({"switch"}),
    "复选框": frozenset({"checkbox"}),
    "勾选框": frozenset({"checkbox"}),
    "单选框": frozenset({"radio"}),
    "单选按钮": frozenset({"radio"}),
    "选项": frozenset({"radio", "checkbox", "button"}),
    "图标": frozenset({"image", "button"}),
    "图片": frozenset({"image"}),
    "标签": frozenset({"tab", "text"}),
    "标签页": frozenset({"tab"}),
    "链接": frozenset({"text", "button"}),
    "文字": frozenset({"text"}),
    "列表": frozenset({"list"}),
}

#: Two-word English role phrases folded into one role word before matching.
ROLE_PHRASES: dict[str, str] = {
    "text field": "field",
    "text box": "textbox",
    "input field": "field",
    "edit text": "field",
    "check box": "checkbox",
    "radio button": "radio",
    "search box": "field",
    "search field": "field",
}

#: Widget class name tails -> role, used when the parser left ``role`` empty or generic.
CLASS_ROLES: dict[str, str] = {
    "Button": "button",
    "ImageButton": "button",
    "EditText": "field",
    "AutoCompleteTextView": "field",
    "SearchView": "field",
    "Switch": "switch",
    "SwitchCompat": "switch",
    "SwitchMaterial": "switch",
    "ToggleButton": "switch",
    "CheckBox": "checkbox",
    "CheckedTextView": "checkbox",
    "RadioButton": "radio",
    "ImageView": "image",
    "TextView": "text",
    "RecyclerView": "list",
    "ListView": "list",
    "ScrollView": "list",
    "TabView": "tab",
}

#: Roles a tap can reach directly; a clickable element of any other role counts as a button too.
ACTIONABLE_ROLES = frozenset({"button", "field", "switch", "checkbox", "radio", "tab"})

ENGLISH_ORDINALS: dict[str, int] = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "fifth": 5,
    "5th": 5,
    "sixth": 6,
    "6th": 6,
    "seventh": 7,
    "7th": 7,
    "eighth": 8,
    "8th": 8,
    "ninth": 9,
    "9th": 9,
    "tenth": 10,
    "10th": 10,
    "last": -1,
    "top": 1,
    "bottom": -1,
}

CHINESE_NUMERALS: dict[str, int] = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}

#: Chinese ordinal phrases: 第二个, 第3个, 最后一个, 最后的.
CHINESE_ORDINAL = re.compile(r"第\s*([一二两三四五六七八九十]|\d+)\s*[个項项条行颗只]?|最后(?:一个|一项|一条|的)?")

#: State word -> (element flag, wanted value).
STATE_WORDS: dict[str, tuple[str, bool]] = {
    "checked": ("checked", True),
    "ticked": ("checked", True),
    "unchecked": ("checked", False),
    "unticked": ("checked", False),
    "on": ("checked", True),
    "off": ("checked", False),
    "enabled": ("enabled", True),
    "disabled": ("enabled", False),
    "greyed": ("enabled", False),
    "selected": ("selected", True),
    "unselected": ("selected", False),
    "focused": ("focused", True),
    "已选中": ("checked", True),
    "已勾选": ("checked", True),
    "未选中": ("checked", False),
    "未勾选": ("checked", False),
    "打开": ("checked", True),
    "开启": ("checked", True),
    "关闭": ("checked", False),
    "已开启": ("checked", True),
    "已关闭": ("checked", False),
    "禁用": ("enabled", False),
    "可用": ("enabled", True),
}

#: Chinese state words that are only state words in front of a role word ("关闭的开关"),
#: since "关闭" alone is also the label "Close".
CHINESE_STATE_BEFORE_ROLE = frozenset({"打开", "开启", "关闭", "可用"})

#: Words that say nothing about which element is meant.
STOP_WORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "on",
        "at",
        "of",
        "to",
        "that",
        "which",
        "says",
        "say",
        "saying",
        "labeled",
        "labelled",
        "called",
        "named",
        "titled",
        "with",
        "text",
        "tap",
        "click",
        "press",
        "screen",
        "page",
        "one",
        "is",
        "shows",
        "showing",
        "marked",
        "for",
    }
)

CHINESE_STOP = ("点击", "点按", "轻触", "按下", "那个", "这个")

#: Relation phrases: the target is related to an anchor element named after the phrase.
ROW_RELATIONS = ("in the row with", "in the row of", "in the same row as", "in the row for", "in row with")
NEAR_RELATIONS = (
    "next to",
    "beside",
    "near",
    "by",
    "right of",
    "left of",
    "to the right of",
    "to the left of",
)
BELOW_RELATIONS = ("below", "under", "beneath")
ABOVE_RELATIONS = ("above", "over")

#: Labels of buttons that close a popup, best first (allow before deny: a test wants to go on).
POPUP_DISMISS_LABELS = (
    "allow",
    "while using the app",
    "only this time",
    "ok",
    "got it",
    "continue",
    "close",
    "dismiss",
    "not now",
    "no thanks",
    "skip",
    "cancel",
    "deny",
    "don't allow",
    "允许",
    "仅在使用中允许",
    "确定",
    "好的",
    "知道了",
    "关闭",
    "跳过",
    "取消",
    "拒绝",
    "不允许",
)

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def fold(text: str) -> str:
    """Case- and width-insensitive form of ``text`` with runs of space collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip()


def is_cjk(char: str) -> bool:
    """True for a Han, kana or Hangul character (scripts written without spaces)."""
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
    )


def words(text: str) -> list[str]:
    """Folded words of ``text``; a run of CJK characters stays one word."""
    out: list[str] = []
    for word in _WORD.findall(fold(text)):
        run = ""
        for char in word:
            if is_cjk(char) != (bool(run) and is_cjk(run[-1])) and run:
                out.append(run)
                run = ""
            run += char
        if run:
            out.append(run)
    if not out:
        # A label made only of symbols ("+", "-", "…") is still a label.
        symbols = fold(text).replace(" ", "")
        return [symbols] if symbols else []
    return out


def resource_words(resource_id: str) -> list[str]:
    """Words of a resource id: ``com.app:id/btn_loginNow`` -> ["btn", "login", "now"]."""
    name = resource_id.rsplit("/", 1)[-1]
    return words(_CAMEL.sub(" ", name).replace("_", " ").replace("-", " "))


def class_role(cls: str) -> str:
    """The role word for a widget class name, or "" when the class says nothing."""
    return CLASS_ROLES.get(cls.rsplit(".", 1)[-1], "")
