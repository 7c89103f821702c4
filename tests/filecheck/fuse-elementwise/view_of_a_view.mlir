// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s
// RUN: tracejit-opt %s --run --input "a=[[1.,2.,3.],[4.,5.,6.]]" | filecheck %s --check-prefix=RESULT
// A view read by a view of it and by an element-wise op (the fuzzer's finding): the inner
// transpose moves into the kernel with the slice, a chain of views. The neg reads `a`
// through the transpose's map, the slice through both views (a load of a at the position
// the chain gives): nothing reads a value the loop computes. (Before views could read
// views, the transpose stayed outside, materialised.)

func.func @view_of_a_view(%a: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %t = tj.transpose %a, permutation = [1, 0] : tensor<2x3xf64> to tensor<3x2xf64>
  %e = tj.neg %t : tensor<3x2xf64>
  %s = tj.slice %t, start = [2, 0], step = [-1, 1] : tensor<3x2xf64> to tensor<3x2xf64>
  %r = tj.add %s, %e : tensor<3x2xf64>
  func.return %r : tensor<3x2xf64>
}

// CHECK:      %{{.*}} = tj.fused %a : (tensor<2x3xf64>) -> tensor<3x2xf64> {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<2x3xf64>):
// CHECK-NEXT:   %[[T:.*]] = tj.transpose %[[IN]], permutation = [1, 0]
// CHECK-NEXT:   %[[E:.*]] = tj.neg %[[T]]
// CHECK-NEXT:   %[[S:.*]] = tj.slice %[[T]], start = [2, 0], step = [-1, 1]
// CHECK-NEXT:   %{{.*}} = tj.add %[[S]], %[[E]]

// NumPy: a.T[::-1] - a.T
// RESULT:      float64[3, 2] = {{\[}}[ 2.  2.]
// RESULT-NEXT:                 [ 0.  0.]
// RESULT-NEXT:                 [-2. -2.]]
