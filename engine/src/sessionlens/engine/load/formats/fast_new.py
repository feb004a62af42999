"""Quicker constructors for the frozen model classes on the loader's hot path.

A frozen dataclass ``__init__`` sets every field through ``object.__setattr__``; for
``Entry`` (28 fields) and ``Message`` (24) that is about half the cost of turning a parsed
line into the model, which the load benchmark weighs against a bare ``json.loads`` loop.
The constructors made here set the same slots straight through their descriptors: the
objects are identical (same class, same field values, still frozen, ``==`` to ones built
with ``__init__``); they are generated from ``dataclasses.fields`` so a field added to the
model later is filled with its default. Only classes without ``__post_init__`` qualify.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["fast_constructor"]

T = TypeVar("T")


def fast_constructor(cls: type[T], params: Sequence[str],
                     fixed: Mapping[str, Any] | None = None) -> Callable[..., T]:
    """A function ``f(*params)`` returning ``cls`` with those fields set and the rest default.

    ``fixed`` gives values for other fields (e.g. one shared empty mapping instead of a
    ``default_factory`` call per object).
    """
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__; use its __init__")
    fixed = dict(fixed or {})
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = {f.name for f in fields}
    unknown = [p for p in (*params, *fixed) if p not in names]
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}")
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    body = ["    o = _new(_cls)"]
    for f in fields:
        setter = f"_set_{f.name}"
        scope[setter] = cls.__dict__[f.name].__set__
        if f.name in params:
            value = f.name
        elif f.name in fixed:
            value = f"_fixed_{f.name}"
            scope[value] = fixed[f.name]
        elif f.default is not dataclasses.MISSING:
            value = f"_default_{f.name}"
            scope[value] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            value = f"_factory_{f.name}()"
            scope[f"_factory_{f.name}"] = f.default_factory
        else:
            raise TypeError(f"{cls.__name__}.{f.name} has no default; add it to params")
        body.append(f"    {setter}(o, {value})")
    source = f"def make({', '.join(params)}):\n" + "\n".join(body) + "\n    return o\n"
    exec(source, scope)  # noqa: S102 - generated from the class's own field list
    make: Callable[..., T] = scope["make"]
    make.__qualname__ = f"fast_{cls.__name__}"
    return make
