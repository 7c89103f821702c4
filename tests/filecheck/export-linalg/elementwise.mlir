// export-linalg: element-wise tj ops become linalg.generic on tensors whose bodies are
// the ops' NumPy scalar forms; broadcasts and transposes are generics reading through
// their indexing maps; a fused kernel is exported op by op.
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x2xf32> {
    %bb = tj.broadcast_in_dim %b, dims = [1] : tensor<3xf32> to tensor<2x3xf32>
    %r = tj.fused %x, %bb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
    ^bb0(%p: tensor<2x3xf32>, %q: tensor<2x3xf32>):
      %s = tj.add %p, %q : tensor<2x3xf32>
      %t = tj.tanh %s : tensor<2x3xf32>
      tj.yield %t : tensor<2x3xf32>
    }
    %tr = tj.transpose %r, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
    func.return %tr : tensor<3x2xf32>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:   %[[E0:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:   %[[BB:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<3xf32>) outs(%[[E0]] : tensor<2x3xf32>)
// CHECK:        %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[BB]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:          arith.addf
// CHECK:        %[[T:.*]] = linalg.generic
// CHECK:          math.tanh
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:  tj.
