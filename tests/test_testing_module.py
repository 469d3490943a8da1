"""planmode.testing is the public home of the offline scripted model and its helpers; the names
DESIGN.md lists under planmode.agentscope stay the same objects."""

from __future__ import annotations

import planmode.agentscope as pa
import planmode.agentscope.scripted as scripted
import planmode.testing as pt


def test_planmode_agentscope_reexports_the_same_objects() -> None:
    for name in ("ScriptedChatModel", "call_tool", "call_tools", "say"):
        assert getattr(pa, name) is getattr(pt, name)
    for name in scripted.__all__:
        assert getattr(scripted, name) is getattr(pt, name)


def test_every_public_name_is_documented() -> None:
    assert pt.__doc__ and "docs/testing.md" in pt.__doc__
    for name in pt.__all__:
        assert getattr(pt, name).__doc__, name


async def test_an_exhausted_script_says_so_and_records_the_call() -> None:
    model = pt.ScriptedChatModel([pt.say("first")])
    first = await model._call_api("scripted", [], None)
    second = await model._call_api("scripted", [], None)
    assert [b.text for b in first.content] == ["first"]
    assert [b.text for b in second.content] == ["(script exhausted)"]
    assert len(model.calls) == 2
