"""Two small project tools for examples and tests: ``read_file`` and ``write_file``.

They stand in for a project's own tools, so a demo agent has something to read and something to
change: ``read_file`` is read-only (plan mode lets it run while planning), ``write_file`` mutates
(plan mode blocks it until the plan is approved). Both allow themselves in their own permission
check, leaving every refusal to the permission mode and plan mode. Paths are relative to the
workspace and cannot leave it (:class:`planmode.PlanWorkspace`: no ``..``, no absolute path, no
symlink escape); writes are atomic.

>>> toolkit = Toolkit(tools=[ReadFile(workspace), WriteFile(workspace), *plan.tools()])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscope.message import TextBlock
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision
from agentscope.tool import ToolBase, ToolChunk

from .._core import PlanWorkspace

__all__ = ["ReadFile", "WriteFile"]


class _WorkspaceTool(ToolBase):
    """A tool over the files of one workspace directory that allows itself."""

    is_concurrency_safe = True

    def __init__(self, root: str | Path) -> None:
        super().__init__()
        self.workspace = PlanWorkspace(root)

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        """Always ALLOW: the permission mode and plan mode decide."""
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message=f"{self.name} is allowed")


class ReadFile(_WorkspaceTool):
    """``read_file(path)``: the text of a workspace file (``(missing)`` when there is none)."""

    name = "read_file"
    description = "Read a file of the project."
    input_schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    is_read_only = True

    async def call(self, path: str) -> ToolChunk:
        """Reads ``path``."""
        text = self.workspace.read(path)
        return ToolChunk(content=[TextBlock(text="(missing)" if text is None else text)])


class WriteFile(_WorkspaceTool):
    """``write_file(path, content)``: replaces a workspace file (mutating: blocked while planning)."""

    name = "write_file"
    description = "Write a file of the project."
    input_schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    is_concurrency_safe = False
    is_read_only = False

    async def call(self, path: str, content: str) -> ToolChunk:
        """Writes ``content`` to ``path``."""
        self.workspace.write(path, content)
        return ToolChunk(content=[TextBlock(text=f"wrote {path} ({len(content)} bytes)")])
