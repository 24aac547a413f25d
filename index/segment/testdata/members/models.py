"""Inventory models."""
import enum

MAX_ITEMS = 100
default_name: str = "item"
lo, hi = 0, 10


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Item:
    """One stock item."""

    # How many were made.
    count = 0
    label: str

    def __init__(self, name, qty):
        self.name = name
        self.qty: int = qty
        if qty > MAX_ITEMS:
            self.overflow = True
        local = 3

    def total(self):
        self.cached = 1
        return self.qty
