"""Locale lookup: one string table per supported locale, with identical keys."""

from __future__ import annotations

import attrs

from adapters.sim.demo_shop import strings_en, strings_zh

LOCALES = ("en", "zh-CN")

_TABLES = {
    "en": (strings_en.STRINGS, strings_en.PRODUCT_NAMES),
    "zh-CN": (strings_zh.STRINGS, strings_zh.PRODUCT_NAMES),
}


@attrs.frozen
class Strings:
    """The visible text of one locale."""

    locale: str = attrs.field(validator=attrs.validators.in_(LOCALES))

    def __call__(self, key: str, **values: object) -> str:
        template = _TABLES[self.locale][0][key]
        return template.format(**values) if values else template

    def product(self, product_id: str) -> str:
        return _TABLES[self.locale][1][product_id]

    def money(self, cents: int) -> str:
        return self("currency", amount=f"{cents // 100}.{cents % 100:02d}")
