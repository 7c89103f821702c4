"""The tf.function guide's TensorArray and tj.print examples, translated to NumPy, run
compiled and eagerly."""

import numpy as np

import tracejit as tj


def eager(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def test_api_page_dynamic_tensor_array():
    @tj.function
    def f(x):
        ta = tj.TensorArray(dtype=tj.int32, size=0, dynamic_size=True)
        for i in range(len(x)):
            ta = ta.write(i, x[i] + 1)
        return ta.stack()

    x = np.array([1, 2, 3], dtype=np.int32)
    np.testing.assert_array_equal(f(x), [2, 3, 4])
    np.testing.assert_array_equal(eager(f, x), [2, 3, 4])


def rnn_step(inp, state):
    return inp + state


@tj.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = np.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tj.TensorArray(tj.float32, size=max_seq_len)
    state = initial_state
    for i in tj.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return np.transpose(states.stack(), [1, 0, 2])


def test_guide_dynamic_rnn():
    batch_size, seq_len, feature_size = 2, 3, 4
    data = np.random.default_rng(0).uniform(size=[batch_size, seq_len, feature_size])
    data = data.astype(np.float32)
    initial = np.zeros([batch_size, feature_size], np.float32)
    compiled = dynamic_rnn(rnn_step, data, initial)
    reference = eager(dynamic_rnn, rnn_step, data, initial)
    assert compiled.shape == (2, 3, 4) and compiled.dtype == np.float32
    np.testing.assert_allclose(compiled, reference, rtol=1e-6)
    np.testing.assert_allclose(compiled, np.cumsum(data, axis=1), rtol=1e-6)


@tj.function
def fizzbuzz(n):
    for i in tj.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            tj.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            tj.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            tj.print("buzz")
        else:
            print("Tracing default branch")
            tj.print(i)


def test_guide_fizzbuzz(capsys):
    eager(fizzbuzz, 5)
    reference = capsys.readouterr().out
    fizzbuzz(np.int64(5))
    traced_and_run = capsys.readouterr().out
    fizzbuzz(np.int64(20))
    second = capsys.readouterr().out
    expected = "1\n2\nfizz\n4\nbuzz\n"
    assert "Tracing for loop\nTracing fizzbuzz branch\n" in traced_and_run  # traced once
    assert traced_and_run.endswith(expected)
    assert [line for line in reference.splitlines() if not line.startswith("Tracing")] == (
        expected.splitlines()
    )
    assert "Tracing" not in second  # no retrace for another tensor value
    expected_20 = "1 2 fizz 4 buzz fizz 7 8 fizz buzz 11 fizz 13 14 fizzbuzz 16 17 fizz 19 buzz"
    assert second.split() == expected_20.split()
