"""The loader's quick constructors build the very objects ``__init__`` would."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from sessionlens.engine.load.formats.fast_new import fast_constructor
from sessionlens.engine.model import Entry, Message, TextBlock, Usage


def test_objects_equal_those_from_init_and_stay_frozen() -> None:
    empty: MappingProxyType[str, object] = MappingProxyType({})
    make = fast_constructor(Entry, ("type", "id", "parent_id", "timestamp", "line", "offset",
                                    "length", "message", "append_mode"), {"extra": empty})
    msg = Message("user", (TextBlock("hi"),), True, 5)
    fast = make("message", "a", None, "t", 2, 10, 20, msg, "side")
    slow = Entry("message", "a", None, "t", 2, 10, 20, message=msg, append_mode="side",
                 extra=empty)
    assert fast == slow and type(fast) is Entry
    assert fast.display is True and fast.content == () and fast.summary is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.id = "b"  # type: ignore[misc]
    new_msg = fast_constructor(Message, ("role", "content", "content_is_string",
                                         "timestamp_ms", "usage"))
    u = Usage(1, 2)
    assert new_msg("assistant", (), False, None, u) == Message("assistant", usage=u)


def test_default_factories_run_per_object() -> None:
    make = fast_constructor(Entry, ("type", "id", "parent_id", "timestamp", "line"))
    a, b = make("x", "1", None, None, 1), make("x", "2", None, None, 2)
    assert a.extra == {} and a.extra is not b.extra


def test_bad_requests_are_refused() -> None:
    with pytest.raises(TypeError, match="no field"):
        fast_constructor(Entry, ("type", "nope"))
    with pytest.raises(TypeError, match="no default"):
        fast_constructor(Entry, ("type",))

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int = 0

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="__post_init__"):
        fast_constructor(Checked, ("x",))
