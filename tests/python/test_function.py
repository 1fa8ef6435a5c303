"""td.function: arrays in, arrays out, kept on the daemon and called with new arguments."""
import numpy as np
import pytest

import tensord as td


def _mlp(x, w1, b1, w2):
    return td.matmul(td.maximum(td.matmul(x, td.matrix_transpose(w1)) + b1, 0),
                     td.matrix_transpose(w2))


def test_a_function_computes_what_the_recorded_graph_computes():
    rng = np.random.default_rng(0)
    w1 = td.asarray(rng.standard_normal((32, 16), dtype=np.float32))
    b1 = td.asarray(rng.standard_normal(32, dtype=np.float32))
    w2 = td.asarray(rng.standard_normal((8, 32), dtype=np.float32))
    td.sync(w1, b1, w2)

    @td.function
    def step(x):
        return _mlp(x, w1, b1, w2)

    for i in range(3):
        x = td.asarray(rng.standard_normal((4, 16), dtype=np.float32))
        y = step(x)
        assert isinstance(y, td.Array) and y.shape == (4, 8)
        np.testing.assert_allclose(y.numpy(), _mlp(x, w1, b1, w2).numpy(), rtol=1e-5, atol=1e-5)
    assert step.traces == 1
    wide = td.asarray(rng.standard_normal((7, 16), dtype=np.float32))
    np.testing.assert_allclose(step(wide).numpy(), _mlp(wide, w1, b1, w2).numpy(),
                               rtol=1e-5, atol=1e-5)
    assert step.traces == 2


def test_tuples_come_back_as_tuples_and_results_feed_other_work():
    @td.function
    def split(a, b):
        return a + b, a * b

    s, p = split(td.asarray([1.0, 2.0]), td.asarray([3.0, 4.0]))
    assert s.numpy().tolist() == [4.0, 6.0] and p.numpy().tolist() == [3.0, 8.0]
    assert (s - p).numpy().tolist() == [1.0, -2.0]
    s2, _ = split(s, p)  # results are arguments like any array
    assert s2.numpy().tolist() == [7.0, 14.0]


def test_captured_arrays_are_fixed_at_the_trace():
    scale = td.asarray([2.0, 3.0])

    @td.function
    def scaled(x):
        return x * scale

    ones = td.ones(2)
    assert scaled(ones).numpy().tolist() == [2.0, 3.0]
    scale = td.asarray([5.0, 7.0])  # noqa: F841 (not seen: captured at the trace)
    assert scaled(ones).numpy().tolist() == [2.0, 3.0]


def test_bad_uses_raise_clear_errors():
    @td.function
    def returns_a_number(x):
        return 3

    with pytest.raises(TypeError, match="result 0 is a int"):
        returns_a_number(td.ones(2))
    assert returns_a_number.traces == 0

    @td.function
    def fine(x):
        return x + 1

    with pytest.raises(TypeError, match="a list argument is neither a tensord array"):
        fine([1.0, 2.0])

    @td.function
    def raises(x):
        raise KeyError("the body's own")

    with pytest.raises(KeyError):
        raises(td.ones(2))

    escaped = []

    @td.function
    def leaky(x):
        escaped.append(x * 2)
        return escaped[-1] + 1

    assert leaky(td.ones(1)).numpy().tolist() == [3.0]
    with pytest.raises(td.TensorError, match="tensord::Function"):
        escaped[0].numpy()
    assert (td.ones(1) + 1).numpy().tolist() == [2.0]  # the session goes on


def test_static_arguments_are_part_of_the_trace():
    @td.function
    def sgd(w, g, lr, nesterov=False):
        step = g * lr
        return w - (step * 2 if nesterov else step)

    w, g = td.asarray([1.0, 2.0]), td.asarray([10.0, 20.0])
    np.testing.assert_allclose(sgd(w, g, 0.1).numpy(), [0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(sgd(w, g, 0.01).numpy(), [0.9, 1.8], rtol=1e-6)
    np.testing.assert_allclose(sgd(w, g, 0.01, nesterov=True).numpy(), [0.8, 1.6], rtol=1e-6)
    np.testing.assert_allclose(sgd(w, g=g, lr=0.01).numpy(), [0.9, 1.8], rtol=1e-6)
    assert sgd.traces == 4  # three static layouts, g once by keyword
    np.testing.assert_allclose(sgd(w, g, 0.1).numpy(), [0.0, 0.0], atol=1e-6)
    assert sgd.traces == 4


def test_a_chain_of_calls_on_results_in_flight():
    @td.function
    def step(x):
        return x * 0.5 + 1

    x = td.asarray([8.0, -8.0])
    want = np.array([8.0, -8.0], np.float32)
    for _ in range(30):
        x = step(x)
        want = want * 0.5 + 1
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-6)


def test_a_failed_call_fails_the_calls_on_its_results_with_its_error():
    table = td.asarray(np.arange(1, 5, dtype=np.float32))

    @td.function
    def pick(i):
        return td.take(table, i, axis=0)

    @td.function
    def twice(x):
        return x * 2

    pick(td.asarray(np.array([0, 1], np.int64)))
    twice(td.ones(2))  # both traced: the calls below only send
    # The twice calls go out before the pick's reply (the daemon queues them behind it) and
    # fail with its error, raised where the client first learns of it.
    with pytest.raises(td.TensorError, match="out of bounds") as error:
        twice(twice(pick(td.asarray(np.array([0, 7], np.int64))))).numpy()
    assert "index_select" in str(error.value)
    good = twice(pick(td.asarray(np.array([3, 0], np.int64))))
    np.testing.assert_allclose(good.numpy(), [8.0, 2.0])


def test_a_function_explains_its_plan():
    @td.function
    def chain(x, scale):
        return td.tanh(td.exp(-x * x) * scale + 1)

    x = td.asarray(np.linspace(-1, 1, 50, dtype=np.float32))
    e = chain.explain(x, 2.0)
    assert e.steps == 1 and len(e.groups) == 1 and "exp" in e.groups[0].ops
    assert chain.traces == 1
    chain(x, 2.0).numpy()
    assert chain.explain(x, 2.0).plan_cached
