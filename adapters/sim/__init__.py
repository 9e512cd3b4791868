"""The simulated Android phone (``SimPhone``), Demo Shop, fault injection and the in-process ``SimDevice``."""

from adapters.sim.demo_shop import PACKAGE as DEMO_SHOP_PACKAGE
from adapters.sim.demo_shop import Address, CartItem, Order, ShopState
from adapters.sim.device import Latency, SimDevice
from adapters.sim.faults import FaultEvent, Faults
from adapters.sim.phone import DumpOutcome, SimPhone

__all__ = [
    "DEMO_SHOP_PACKAGE",
    "Address",
    "CartItem",
    "DumpOutcome",
    "FaultEvent",
    "Faults",
    "Latency",
    "Order",
    "ShopState",
    "SimDevice",
    "SimPhone",
]
