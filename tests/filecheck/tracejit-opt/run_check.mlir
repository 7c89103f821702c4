// --run: a failed run-time check (a non-zero kernel status) is reported with its message.
// RUN: tracejit-opt %s --run --input ok=True --input x="[1.5, 2.5]" | filecheck %s
// RUN: not tracejit-opt %s --run --input ok=False --input x="[1.5, 2.5]" 2>&1 | filecheck %s --check-prefix=FAIL

builtin.module {
  func.func @checked(%ok: tensor<i1>, %x: tensor<2xf64>) -> tensor<2xf64> {
    tj.assert %ok, "IndexError: index 7 is out of bounds" : tensor<i1>
    %r = tj.add %x, %x : tensor<2xf64>
    func.return %r : tensor<2xf64>
  }
}

// CHECK: result: float64[2] = [3. 5.]
// FAIL:  error: @checked failed a run-time check: IndexError: index 7 is out of bounds
