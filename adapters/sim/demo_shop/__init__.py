"""Demo Shop (``com.example.demoshop``): the app the simulated phone runs, in English and Chinese."""

from adapters.sim.demo_shop.app import PACKAGE, VERSION, DemoShopApp
from adapters.sim.demo_shop.state import CATALOGUE, Address, CartItem, Order, ShopState

__all__ = ["CATALOGUE", "PACKAGE", "VERSION", "Address", "CartItem", "DemoShopApp", "Order", "ShopState"]
