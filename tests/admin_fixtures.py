"""Fixtures for the admin/HTTP tests: a real redis-server and real AgentScope app processes on loopback.

``conftest.py`` registers this module as a plugin, so every test module can ask for these fixtures.
Shared nodes stay isolated per test by ids: each test creates its own agents and sessions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from devtools.nodes import AppNode, RedisServer

TOKEN = "test-admin-token"
USER = "alice"


@dataclass
class Cluster:
    """A redis-server and the app nodes sharing it; ``stack`` stops them all."""

    redis: RedisServer
    workdir: Path
    nodes: dict[str, AppNode] = field(default_factory=dict)

    def start_nodes(self, names: tuple[str, ...], stack: ExitStack) -> None:
        """Spawns every node at once, then waits until each answers."""
        for name in names:
            node = AppNode(name, self.redis.port, self.workdir, TOKEN)
            stack.callback(node.stop)
            self.nodes[name] = node
        for node in self.nodes.values():
            node.wait_ready()


def start_cluster(tmp_path: Path, names: tuple[str, ...]) -> Iterator[Cluster]:
    """Starts redis then the named nodes; always tears everything down, in reverse order."""
    with ExitStack() as stack:
        redis = RedisServer(tmp_path)
        stack.callback(redis.stop)
        cluster = Cluster(redis=redis, workdir=tmp_path)
        cluster.start_nodes(names, stack)
        yield cluster


@pytest.fixture(scope="module")
def one_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppNode]:
    """One app node on its own redis-server, for the module."""
    for cluster in start_cluster(tmp_path_factory.mktemp("one-node"), ("node",)):
        yield cluster.nodes["node"]


@pytest.fixture()
def client(one_node: AppNode) -> Iterator[httpx.Client]:
    """An HTTP client of ``one_node``, signed in as ``USER``."""
    with one_node.client(USER) as http:
        yield http


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two app nodes ("a", "b") sharing one redis-server, each with its own workspace directory, for the
    module: a test using them must leave both running (one that kills a node takes ``fresh_two_nodes``)."""
    yield from start_cluster(tmp_path_factory.mktemp("two-nodes"), ("a", "b"))


@pytest.fixture()
def fresh_two_nodes(tmp_path: Path) -> Iterator[Cluster]:
    """Like ``two_nodes`` but started for one test alone, which may kill them."""
    yield from start_cluster(tmp_path, ("a", "b"))
