"""Ops with several outputs: a tuple of arrays over one recorded node."""
import numpy as np
import pytest

import tensord as td


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_frexp_matches_numpy(dtype):
    a = np.array([8.0, -3.0, 0.0, 0.375, 1e-3, np.inf, -np.inf, np.nan], dtype=dtype)
    mantissa, exponent = td.frexp(td.asarray(a))
    want_m, want_e = np.frexp(a)
    np.testing.assert_array_equal(np.asarray(mantissa), want_m)
    np.testing.assert_array_equal(np.asarray(exponent)[np.isfinite(a)], want_e[np.isfinite(a)])
    assert exponent.dtype == td.int32


def test_frexp_outputs_feed_one_graph():
    a = np.linspace(-5, 5, 11, dtype=np.float32)
    m, e = td.frexp(td.asarray(a) * 2)
    rebuilt = m * td.exp2(td.astype(e, td.float32))
    np.testing.assert_array_equal(np.asarray(rebuilt), a * 2)


def test_frexp_rejects_integers_at_the_callers_line():
    with pytest.raises(TypeError, match="frexp"):
        td.frexp(td.asarray(np.arange(3)))
