"""What a message the page shows a user must not look like: a JavaScript error's own text or a
value that was never meant to be shown, where the page should have named the problem."""

from __future__ import annotations

# The last: a frame of a stack trace.
UNEXPECTED = ("TypeError", "RangeError", "ReferenceError", "undefined", "[object", "NaN is", "\n    at ")


def is_clear(message: object) -> bool:
    """A non-empty text free of the signs of an error the page did not catch itself."""
    return isinstance(message, str) and bool(message.strip()) and not any(sign in message for sign in UNEXPECTED)
