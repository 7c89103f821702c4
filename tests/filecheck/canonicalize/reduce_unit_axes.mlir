// canonicalize: a reduction over axes of size 1 is a reshape (each result element is the
// one element reduced) for prod/max/min/any/all and integer sum. A float sum stays:
// NumPy starts it from +0.0, so np.sum([[-0.0]], axis=1) is +0.0, not the element.
// argmax/argmin and reductions over a longer axis stay too.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @rewritten(%x: tensor<4x1xi32>, %f: tensor<1x3x1xf32>, %b: tensor<1x2xi1>)
  // CHECK-NEXT:    %[[S:.*]] = tj.reshape %x : tensor<4x1xi32> to tensor<4xi32>
  // CHECK-NEXT:    %[[M:.*]] = tj.reshape %f : tensor<1x3x1xf32> to tensor<3xf32>
  // CHECK-NEXT:    %[[P:.*]] = tj.reshape %f : tensor<1x3x1xf32> to tensor<3x1xf32>
  // CHECK-NEXT:    %[[A:.*]] = tj.reshape %b : tensor<1x2xi1> to tensor<2xi1>
  // CHECK-NEXT:    func.return %[[S]], %[[M]], %[[P]], %[[A]]
  func.func @rewritten(%x: tensor<4x1xi32>, %f: tensor<1x3x1xf32>, %b: tensor<1x2xi1>) -> (tensor<4xi32>, tensor<3xf32>, tensor<3x1xf32>, tensor<2xi1>) {
    %s = tj.reduce "sum" %x, axes = [1] : tensor<4x1xi32> to tensor<4xi32>
    %m = tj.reduce "max" %f, axes = [0, 2] : tensor<1x3x1xf32> to tensor<3xf32>
    %p = tj.reduce "prod" %f, axes = [0] : tensor<1x3x1xf32> to tensor<3x1xf32>
    %a = tj.reduce "all" %b, axes = [0] : tensor<1x2xi1> to tensor<2xi1>
    func.return %s, %m, %p, %a : tensor<4xi32>, tensor<3xf32>, tensor<3x1xf32>, tensor<2xi1>
  }

  // CHECK-LABEL: func.func @kept(%x: tensor<4x1xi32>, %f: tensor<1x3xf32>)
  // CHECK-NEXT:    tj.reduce "sum" %f, axes = [0]
  // CHECK-NEXT:    tj.reduce "argmax" %x, axes = [1]
  // CHECK-NEXT:    tj.reduce "sum" %x, axes = [0]
  func.func @kept(%x: tensor<4x1xi32>, %f: tensor<1x3xf32>) -> (tensor<3xf32>, tensor<4xi64>, tensor<1xi32>) {
    %s = tj.reduce "sum" %f, axes = [0] : tensor<1x3xf32> to tensor<3xf32>
    %i = tj.reduce "argmax" %x, axes = [1] : tensor<4x1xi32> to tensor<4xi64>
    %l = tj.reduce "sum" %x, axes = [0] : tensor<4x1xi32> to tensor<1xi32>
    func.return %s, %i, %l : tensor<3xf32>, tensor<4xi64>, tensor<1xi32>
  }
}
