// canonicalize: x ** 2 -> x * x, x ** 0.5 -> sqrt(x) (floats), x ** 1 -> x, for a splat
// exponent (what `x ** 2` and `np.power(x, 0.5)` trace to). NumPy's power loop computes a
// scalar exponent 2 and 0.5 exactly this way (np.array([-np.inf]) ** 0.5 is NaN, as
// sqrt), so the rewrites are bit-identical to NumPy. Other exponents, an exponent that
// is not a splat, and an integer ** 0.5 (impossible here: tracing casts to float) stay.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @rewritten(%x: tensor<3xf32>, %i: tensor<3xi32>)
  // CHECK-NEXT:    %[[SQ:.*]] = tj.mul %x, %x : tensor<3xf32>
  // CHECK-NEXT:    %[[RT:.*]] = tj.sqrt %x : tensor<3xf32>
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
}
