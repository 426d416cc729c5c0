"""Search settings from Python: the core's SearchParams with overrides applied, checked once.

The defaults, units and allowed ranges live in csrc/search/params.h (one X-macro), so this
module only names what is wrong, in the caller's words."""

from __future__ import annotations

from collections.abc import Mapping

from .. import _core

SearchOverrides = dict[str, float | int | bool]  # SearchParams field -> value


def search_params(overrides: Mapping[str, float | int | bool], context: str = "search setting") -> _core.SearchParams:
    """The core's default search settings with `overrides` applied. Raises ValueError,
    starting with `context`, for an unknown field, a value of the wrong type, or a value
    outside its field's range."""
    params = _core.SearchParams()
    for name, value in overrides.items():
        if name not in _core.SearchParams.fields:
            raise ValueError(f"{context}: {name!r} is not a search setting ({', '.join(_core.SearchParams.fields)})")
        try:
            setattr(params, name, value)
        except TypeError:
            wanted = type(getattr(params, name)).__name__
            raise ValueError(f"{context}: {name}={value!r} is not of type {wanted}") from None
    try:
        params.validate()
    except ValueError as error:
        raise ValueError(f"{context}: {error}") from None
    return params
