"""Inventory helpers."""
import os
import json as js
from collections import OrderedDict

LIMIT = 10


def load(path):
    """Load an inventory file."""
    with open(path) as f:
        return js.load(f)


class Inventory:
    """A set of items."""

    kind = "store"

    def __init__(self, items):
        self.items = OrderedDict(items)

    @property
    def size(self):
        return len(self.items)

    class Item:
        def label(self):
            return "item"


@staticmethod
def helper():
    return os.getcwd()
