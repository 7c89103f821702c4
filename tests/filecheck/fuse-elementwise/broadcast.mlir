// fuse-elementwise: a broadcast feeding the chain stays in the kernel reading the block
// argument (bufferize turns it into the input's indexing map), never a materialised
// tensor; the broadcast input is not pulled into the kernel, and a broadcast of a 0-d
// value works the same way.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @center(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
    %e = tj.exp %m : tensor<3xf32>
    %b = tj.broadcast_in_dim %e, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
    %d = tj.sub %x, %b : tensor<4x3xf32>
    %bs = tj.broadcast_in_dim %s, dims = [] : tensor<f32> to tensor<4x3xf32>
    %r = tj.mul %d, %bs : tensor<4x3xf32>
    func.return %r : tensor<4x3xf32>
  }
}

// CHECK-LABEL: func.func @center
// CHECK-NEXT:    %[[E:.*]] = tj.exp %{{.*}} : tensor<3xf32>
// CHECK-NEXT:    %[[K:.*]] = tj.fused %[[E]], %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[EA:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<4x3xf32>, %[[SA:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[B:.*]] = tj.broadcast_in_dim %[[EA]], dims = [1] : tensor<3xf32> to tensor<4x3xf32>
// CHECK-NEXT:      %[[D:.*]] = tj.sub %[[X]], %[[B]]
// CHECK-NEXT:      %[[BS:.*]] = tj.broadcast_in_dim %[[SA]], dims = [] : tensor<f32> to tensor<4x3xf32>
// CHECK-NEXT:      %[[R:.*]] = tj.mul %[[D]], %[[BS]]
// CHECK-NEXT:      tj.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]]
