"""Hypothesis strategies for hostile game records, shared by the readers' fuzzers (the GUI's
popucom/gui/records.py in tests/gui, and the web app's records.js against it in tests/web): SGF
text built from the grammar's pieces (hostile KM, escapes, deep nesting, damaged and cut-short
text) and JSONL records with hostile fields."""

from __future__ import annotations

from hypothesis import strategies as st

SQUARES = [f"{c}{r}" for c in "abcdefghi" for r in range(1, 10)]
VALUES = st.one_of(
    st.sampled_from(SQUARES + ["", "inf", "nan", "-0", "1e30", "81", "-81", "82", "3.5", "1:0.5:2", "x]y", "\\"]),
    st.text(max_size=6),
)
PROPERTY = st.tuples(st.sampled_from(["B", "W", "C", "KM", "ZA", "GM", "SZ", "PB", "RE", "AB", "b"]), VALUES)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


@st.composite
def sgf_trees(draw, depth: int = 0) -> str:
    nodes = draw(st.lists(st.lists(PROPERTY, max_size=3), min_size=0 if draw(st.booleans()) else 1, max_size=4))
    text = "".join(";" + "".join(f"{key}[{_escape(value)}]" for key, value in node) for node in nodes)
    children = draw(st.lists(sgf_trees(depth + 1), max_size=3 if depth < 4 else 0))
    return "(" + text + "".join(children) + ")"


def sgf_text(tree_text: str, noise: str, cut: int) -> str:
    """The generated tree, sometimes damaged: noise spliced in or the text cut short."""
    if cut % 3 == 0:
        return tree_text
    at = cut % (len(tree_text) + 1)
    return tree_text[:at] + (noise if cut % 3 == 1 else "")


KOMI_TEXTS = st.one_of(
    st.sampled_from(["inf", "-inf", "nan", "1e30", "-1e30", "82", "-82", "81", "-81", "0", "7.0", "0.5", "", "x"]),
    st.text(max_size=5),
)
NESTING = st.sampled_from([0, 0, 1, 3, 1200])  # 1200: past Python's recursion limit


def sgf_game(komi: str, nesting: int, tree_text: str) -> str:
    return f"(;GM[81]KM[{_escape(komi)}]" + "(;" * nesting + tree_text + ")" * nesting + ")"


JSON_VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["e5 d4", "e5 e5", "a1 b1 c1", "black", "white", "draw"]),
    st.lists(st.one_of(st.sampled_from(SQUARES), st.integers(-2, 90), st.floats(), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
KOMIS = st.one_of(
    st.sampled_from([0, 81, -81, 82, -1000, 2.5, 1e30, float("inf"), float("-inf"), float("nan"), True, "7", None]),
    JSON_VALUES,
)
RECORDS = st.fixed_dictionaries(
    {"moves": st.one_of(st.sampled_from(["e5 d4", "", "a1 b1 c1", "e5 e5", ["e5", 40]]), JSON_VALUES)},
    optional={
        "komi": KOMIS,
        "result": st.one_of(
            st.sampled_from(["black", "white", "draw", "?", "toString", "__proto__", "constructor"]), JSON_VALUES
        ),
        "score": st.one_of(st.sampled_from([0, 3, -81, 82, 1e400, float("nan")]), JSON_VALUES),
        "black": JSON_VALUES,
        "white": JSON_VALUES,
    },
)
NESTED_JSON = st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)
