// constant-fold's size cap: no operand or result above max-bytes (default 1 MiB) is built.
// np.ones((4096, 4096)) * 2 (128 MiB of f64) stays a multiply of two broadcasts; with
// max-bytes=16 a tensor<4xf32> (16 bytes) folds and a tensor<8xf32> does not.
// RUN: tracejit-opt %s -p constant-fold | filecheck %s --check-prefix=DEFAULT
// RUN: tracejit-opt %s -p 'constant-fold{max-bytes=16}' | filecheck %s --check-prefix=SMALL

builtin.module {
  func.func @big() -> tensor<4096x4096xf64> {
    %one = tj.constant dense<1.0> : tensor<f64>
    %two = tj.constant dense<2.0> : tensor<f64>
    %ones = tj.broadcast_in_dim %one, dims = [] : tensor<f64> to tensor<4096x4096xf64>
    %twos = tj.broadcast_in_dim %two, dims = [] : tensor<f64> to tensor<4096x4096xf64>
    %r = tj.mul %ones, %twos : tensor<4096x4096xf64>
    func.return %r : tensor<4096x4096xf64>
  }
  func.func @small() -> (tensor<4xf32>, tensor<8xf32>) {
    %c4 = tj.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %c8 = tj.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %n4 = tj.neg %c4 : tensor<4xf32>
    %n8 = tj.neg %c8 : tensor<8xf32>
    func.return %n4, %n8 : tensor<4xf32>, tensor<8xf32>
  }
}

// DEFAULT-LABEL: func.func @big()
// DEFAULT:         tj.broadcast_in_dim
// DEFAULT-NEXT:    tj.broadcast_in_dim
// DEFAULT-NEXT:    tj.mul
// DEFAULT-LABEL: func.func @small()
// DEFAULT-NEXT:    tj.constant dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00]> : tensor<4xf32>
// DEFAULT-NEXT:    tj.constant dense<[-1.000000e+00, {{.*}}, -8.000000e+00]> : tensor<8xf32>
// DEFAULT-NOT:     tj.neg

// SMALL-LABEL: func.func @small()
// SMALL:         %[[N4:.*]] = tj.constant dense<[-1.000000e+00, {{.*}}]> : tensor<4xf32>
// SMALL:         %[[N8:.*]] = tj.neg %{{.*}} : tensor<8xf32>
// SMALL-NEXT:    func.return %[[N4]], %[[N8]]
