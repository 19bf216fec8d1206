import pytest
from conftest import tnet
from hypothesis import given
from hypothesis import strategies as st

from toolkit.wire.tnetstring import TNetStringError, parse

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.binary(max_size=20)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_round_trip(value):
    data = tnet(value)
    assert parse(data) == (value, len(data))


def test_consecutive_values_and_errors():
    data = tnet({"a": [1, b"x"]}) + tnet("next")
    first, end = parse(data)
    assert first == {"a": [1, b"x"]} and parse(data, end) == ("next", len(data))
    for bad, where in [
        (b"5:abc,", "runs past the end"),
        (b"x:1#", "length prefix"),
        (b"1:1?", "unknown type"),
        (b"4:true!", None),
        (b"3:yes!", "bad boolean"),
    ]:
        if where is None:
            assert parse(bad) == (True, len(bad))
            continue
        with pytest.raises(TNetStringError, match=where):
            parse(bad)
