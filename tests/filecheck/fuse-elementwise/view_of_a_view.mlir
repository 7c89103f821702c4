// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s
// A view read by a view of it and by an element-wise op (the fuzzer's finding): the inner
// transpose stays outside the kernel, materialised, since the slice inside the kernel reads
// its operand from memory. Pulling it in made the slice read a value the loop computes.

func.func @view_of_a_view(%a: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %t = tj.transpose %a, permutation = [1, 0] : tensor<2x3xf64> to tensor<3x2xf64>
  %e = tj.neg %t : tensor<3x2xf64>
  %s = tj.slice %t, start = [2, 0], step = [-1, 1] : tensor<3x2xf64> to tensor<3x2xf64>
  %r = tj.add %s, %e : tensor<3x2xf64>
  func.return %r : tensor<3x2xf64>
}

// CHECK:      %[[T:.*]] = tj.transpose %a, permutation = [1, 0]
// CHECK-NEXT: %{{.*}} = tj.fused %[[T]] : (tensor<3x2xf64>) -> tensor<3x2xf64> {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<3x2xf64>):
// CHECK-NEXT:   %[[E:.*]] = tj.neg %[[IN]]
// CHECK-NEXT:   %[[S:.*]] = tj.slice %[[IN]], start = [2, 0], step = [-1, 1]
// CHECK-NEXT:   %{{.*}} = tj.add %[[S]], %[[E]]
