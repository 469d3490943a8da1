"""The offline scripted model, kept importable here; it is documented in :mod:`planmode.testing`."""

from __future__ import annotations

from ..testing import ScriptedChatModel, ScriptStep, call_tool, call_tools, say

__all__ = ["ScriptStep", "ScriptedChatModel", "call_tool", "call_tools", "say"]
