// canonicalize: x ** 2 -> x * x and x ** 1 -> x for a splat exponent. tj.pow is pow()
// element by element, and these agree with it to the rounding (x * x is the correctly
// rounded square) and at every special value. x ** 0.5 stays: pow(-inf, 0.5) is inf and
// sqrt(-inf) NaN. (NumPy's `x ** 0.5` IS sqrt: tracing emits tj.sqrt for it, and keeps
// tj.pow for np.power(x, np.full(n, 0.5)), which NumPy computes with pow().)
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @rewritten(%x: tensor<3xf32>, %i: tensor<3xi32>)
  // CHECK-NEXT:    %[[SQ:.*]] = tj.mul %x, %x : tensor<3xf32>
  // CHECK-NEXT:    %[[HALF:.*]] = tj.constant dense<5.000000e-01> : tensor<3xf32>
  // CHECK-NEXT:    %[[RT:.*]] = tj.pow %x, %[[HALF]] : tensor<3xf32>
  // CHECK-NEXT:    %[[ISQ:.*]] = tj.mul %i, %i : tensor<3xi32>
  // CHECK-NEXT:    func.return %[[SQ]], %[[RT]], %[[ISQ]], %x
  func.func @rewritten(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) {
    %two = tj.constant dense<2.0> : tensor<f32>
    %twos = tj.broadcast_in_dim %two, dims = [] : tensor<f32> to tensor<3xf32>
    %sq = tj.pow %x, %twos : tensor<3xf32>
    %half = tj.constant dense<0.5> : tensor<3xf32>
    %rt = tj.pow %x, %half : tensor<3xf32>
    %itwo = tj.constant dense<2> : tensor<3xi32>
    %isq = tj.pow %i, %itwo : tensor<3xi32>
    %one = tj.constant dense<1.0> : tensor<3xf32>
    %id = tj.pow %x, %one : tensor<3xf32>
    func.return %sq, %rt, %isq, %id : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>
  }

  // CHECK-LABEL: func.func @kept(%x: tensor<3xf32>, %y: tensor<3xf32>)
  // CHECK-NOT:     tj.sqrt
  // CHECK-NOT:     tj.mul
  // CHECK:         %[[A:.*]] = tj.pow %x, %{{.*}} : tensor<3xf32>
  // CHECK:         %[[B:.*]] = tj.pow %x, %{{.*}} : tensor<3xf32>
  // CHECK-NEXT:    %[[C:.*]] = tj.pow %x, %y : tensor<3xf32>
  // CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
  func.func @kept(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %three = tj.constant dense<3.0> : tensor<3xf32>
    %a = tj.pow %x, %three : tensor<3xf32>
    %mixed = tj.constant dense<[2.0, 2.0, 0.5]> : tensor<3xf32>
    %b = tj.pow %x, %mixed : tensor<3xf32>
    %c = tj.pow %x, %y : tensor<3xf32>
    func.return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }

  // A pow marked one_exponent folds as NumPy's loop for one exponent: -0.0 ** 0.5 is
  // sqrt(-0.0), -0.0, where the plain pow gives +0.0.
  // CHECK-LABEL: func.func @folded()
  // CHECK-NEXT:    %[[M:.*]] = tj.constant dense<[-0.000000e+00, 2.000000e+00]> : tensor<2xf64>
  // CHECK-NEXT:    %[[P:.*]] = tj.constant dense<[0.000000e+00, 2.000000e+00]> : tensor<2xf64>
  // CHECK-NEXT:    func.return %[[M]], %[[P]]
  func.func @folded() -> (tensor<2xf64>, tensor<2xf64>) {
    %x = tj.constant dense<[-0.0, 4.0]> : tensor<2xf64>
    %y = tj.constant dense<0.5> : tensor<2xf64>
    %marked = tj.pow %x, %y one_exponent : tensor<2xf64>
    %plain = tj.pow %x, %y : tensor<2xf64>
    func.return %marked, %plain : tensor<2xf64>, tensor<2xf64>
  }
}
