"""Short role words ("button", "field", "switch", ...) derived from a node's class and flags."""

from __future__ import annotations

import functools

_BY_SIMPLE_NAME: dict[str, str] = {
    "Button": "button",
    "ImageButton": "button",
    "MaterialButton": "button",
    "AppCompatButton": "button",
    "AppCompatImageButton": "button",
    "FloatingActionButton": "button",
    "ExtendedFloatingActionButton": "button",
    "Chip": "button",
    "EditText": "field",
    "AutoCompleteTextView": "field",
    "MultiAutoCompleteTextView": "field",
    "TextInputEditText": "field",
    "AppCompatEditText": "field",
    "SearchAutoComplete": "field",
    "Switch": "switch",
    "SwitchCompat": "switch",
    "SwitchMaterial": "switch",
    "MaterialSwitch": "switch",
    "ToggleButton": "switch",
    "CheckBox": "checkbox",
    "MaterialCheckBox": "checkbox",
    "AppCompatCheckBox": "checkbox",
    "CheckedTextView": "checkbox",
    "RadioButton": "radio",
    "MaterialRadioButton": "radio",
    "AppCompatRadioButton": "radio",
    "ImageView": "image",
    "AppCompatImageView": "image",
    "TextView": "text",
    "AppCompatTextView": "text",
    "MaterialTextView": "text",
    "RecyclerView": "list",
    "ListView": "list",
    "GridView": "list",
    "ScrollView": "list",
    "NestedScrollView": "list",
    "HorizontalScrollView": "list",
    "ViewPager": "list",
    "ViewPager2": "list",
    "ProgressBar": "progress",
    "SeekBar": "slider",
    "RatingBar": "slider",
    "Spinner": "dropdown",
    "WebView": "web",
    "TabWidget": "tabs",
}

#: Roles that are controls in their own right: a clickable node keeps them instead of becoming "button".
_CONTROL_ROLES = frozenset({"button", "field", "switch", "checkbox", "radio", "slider", "dropdown", "tab"})


def simple_class_name(cls: str) -> str:
    """The class name without its package (``android.widget.Button`` -> ``Button``)."""
    return cls.rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=2048)
def role_word(cls: str, *, clickable: bool, scrollable: bool, checkable: bool, has_text: bool) -> str:
    """The role word for a node: its widget kind, or what its flags make it (a clickable container is a button)."""
    name = simple_class_name(cls)
    inner = name.rsplit("$", 1)[-1]
    role = _BY_SIMPLE_NAME.get(name) or _BY_SIMPLE_NAME.get(inner)
    if role is None:
        if "Tab" in inner and not inner.endswith(("Layout", "Host", "Widget")):
            role = "tab"
        elif inner.endswith("EditText"):
            role = "field"
        elif inner.endswith("Switch"):
            role = "switch"
        elif inner.endswith("CheckBox"):
            role = "checkbox"
        elif inner.endswith("Button"):
            role = "button"
        elif inner.endswith("ImageView"):
            role = "image"
        elif inner.endswith("TextView"):
            role = "text"
        elif inner.endswith(("RecyclerView", "ListView", "ScrollView")):
            role = "list"
    if role is None:
        if checkable:
            return "checkbox"
        if scrollable:
            return "list"
        if clickable:
            return "button"
        return "text" if has_text else "group"
    if role == "checkbox" and name == "CheckedTextView" and not checkable:
        return "button" if clickable else "text"
    if clickable and role not in _CONTROL_ROLES and role not in ("list",):
        return "button"
    return role
