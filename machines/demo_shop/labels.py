"""What a tester reads on Demo Shop's screens, per locale: the words the machines use."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PACKAGE = "com.example.demoshop"
LOCALES = ("en", "zh-CN")

_EN = {
    "username": "Username field",
    "password": "Password field",
    "login": "Log in button",
    "login_error": "Wrong username or password",
    "products": "Products",
    "search": "Search products field",
    "cart": "Cart",
    "settings": "Settings",
    "add_to_cart": "Add to cart",
    "added_toast": "Added to cart",
    "in_cart": "In your cart: {n}",
    "delete": "Delete",
    "checkout": "Checkout",
    "cart_title": "Cart",
    "cart_empty": "Your cart is empty",
    "total": "cart total",
    "increase": "Increase quantity of {name}",
    "quantity": "quantity in the row with {name}",
    "full_name": "Full name field",
    "street": "Street and number field",
    "city": "City field",
    "postal": "Postal code field",
    "continue": "Continue",
    "payment": "Payment",
    "pay_now": "Pay now",
    "thanks": "Thank you for your purchase!",
    "dark_mode": "Dark mode switch",
    "logout": "Log out",
    "logout_dialog": "Log out?",
    "logout_confirm": "Log out button",
    "welcome": "Welcome back",
    "headphones": "Wireless Headphones",
    "mug": "Coffee Mug",
    "watch": "Smart Watch",
    "qty_1": "Qty: 1",
    "qty_2": "Qty: 2",
}

_ZH = {
    "username": "用户名输入框",
    "password": "密码输入框",
    "login": "登录按钮",
    "login_error": "用户名或密码错误",
    "products": "商品",
    "search": "搜索商品输入框",
    "cart": "购物车",
    "settings": "设置",
    "add_to_cart": "加入购物车",
    "added_toast": "已加入购物车",
    "in_cart": "购物车中：{n}",
    "delete": "删除",
    "checkout": "去结算",
    "cart_title": "购物车",
    "cart_empty": "购物车是空的",
    "total": "合计",
    "increase": "增加{name}的数量",
    "quantity": "{name}那一行的数量",
    "full_name": "姓名输入框",
    "street": "街道和门牌号输入框",
    "city": "城市输入框",
    "postal": "邮政编码输入框",
    "continue": "继续",
    "payment": "支付",
    "pay_now": "立即支付",
    "thanks": "感谢您的购买！",
    "dark_mode": "深色模式开关",
    "logout": "退出登录",
    "logout_dialog": "退出登录？",
    "logout_confirm": "退出登录按钮",
    "welcome": "欢迎回来",
    "headphones": "无线耳机",
    "mug": "咖啡杯",
    "watch": "智能手表",
    "qty_1": "数量：1",
    "qty_2": "数量：2",
}

LABELS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {"en": MappingProxyType(_EN), "zh-CN": MappingProxyType(_ZH)}
)


def labels(locale: str) -> Mapping[str, str]:
    """The label table of ``locale`` (``en`` or ``zh-CN``)."""
    return LABELS[locale]
