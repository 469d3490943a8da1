"""Test-wide setup: the checkout's ``devtools`` helpers are importable, and the admin fixtures are shared."""

from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = str(Path(__file__).resolve().parent.parent)
if CHECKOUT not in sys.path:
    sys.path.insert(0, CHECKOUT)

# The redis-server / app-node fixtures (one_node, client, two_nodes, fresh_two_nodes) for every test module.
pytest_plugins = ["admin_fixtures"]
