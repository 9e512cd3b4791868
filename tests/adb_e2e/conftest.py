"""Fixtures for end-to-end tests over a real adb server: see :mod:`tests.adbkit`."""

from tests.adbkit import adb_serial, adb_server, phone_clock, sim_daemon, sim_phone

__all__ = ["adb_serial", "adb_server", "phone_clock", "sim_daemon", "sim_phone"]
