// fuse-elementwise: views (static slices, also reversed; transposes) of a value from
// outside feed the kernel like broadcasts do: the view moves into the kernel, reading the
// block argument, and its operand stays an input (the stencil reads `a` once, in place,
// instead of a copy per slice). A reduction of slices alone is one kernel too: a slice's
// count is the length of its loops (bufferize bounds them with a data-less buffer).
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @stencil(%a: tensor<10xf32>) -> tensor<8xf32> {
    %l = tj.slice %a, start = [0], step = [1] : tensor<10xf32> to tensor<8xf32>
    %c = tj.slice %a, start = [1], step = [1] : tensor<10xf32> to tensor<8xf32>
    %r = tj.slice %a, start = [2], step = [1] : tensor<10xf32> to tensor<8xf32>
    %s = tj.add %c, %l : tensor<8xf32>
    %t = tj.add %s, %r : tensor<8xf32>
    func.return %t : tensor<8xf32>
  }
  func.func @reversed_transposed(%a: tensor<4x3xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %t = tj.transpose %a, permutation = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
    %v = tj.slice %b, start = [2, 0], step = [-1, 1] : tensor<3x4xf32> to tensor<3x4xf32>
    %s = tj.mul %t, %v : tensor<3x4xf32>
    func.return %s : tensor<3x4xf32>
  }
  func.func @view_of_a_result(%a: tensor<10xf32>) -> tensor<8xf32> {
    %e = tj.exp %a : tensor<10xf32>
    %l = tj.slice %e, start = [0], step = [1] : tensor<10xf32> to tensor<8xf32>
    %r = tj.slice %e, start = [2], step = [1] : tensor<10xf32> to tensor<8xf32>
    %t = tj.sub %r, %l : tensor<8xf32>
    func.return %t : tensor<8xf32>
  }
  func.func @slice_sum(%a: tensor<10xf32>) -> tensor<f32> {
    %l = tj.slice %a, start = [0], step = [1] : tensor<10xf32> to tensor<9xf32>
    %r = tj.slice %a, start = [1], step = [1] : tensor<10xf32> to tensor<9xf32>
    %d = tj.sub %r, %l : tensor<9xf32>
    %s = tj.reduce "sum" %d, axes = [0] : tensor<9xf32> to tensor<f32>
    func.return %s : tensor<f32>
  }
}

// CHECK-LABEL: func.func @stencil
// CHECK-NEXT:    %[[K:.*]] = tj.fused %{{.*}} : (tensor<10xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<10xf32>):
// CHECK-NEXT:      %[[L:.*]] = tj.slice %[[A]], start = [0], step = [1]
// CHECK-NEXT:      %[[C:.*]] = tj.slice %[[A]], start = [1], step = [1]
// CHECK-NEXT:      %[[R:.*]] = tj.slice %[[A]], start = [2], step = [1]
// CHECK-NEXT:      %[[S:.*]] = tj.add %[[C]], %[[L]]
// CHECK-NEXT:      %[[T:.*]] = tj.add %[[S]], %[[R]]
// CHECK-NEXT:      tj.yield %[[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]]

// CHECK-LABEL: func.func @reversed_transposed
// CHECK-NEXT:    %[[K:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3x4xf32>):
// CHECK-NEXT:      %[[T:.*]] = tj.transpose %[[A]], permutation = [1, 0]
// CHECK-NEXT:      %[[V:.*]] = tj.slice %[[B]], start = [2, 0], step = [-1, 1]
// CHECK-NEXT:      %[[S:.*]] = tj.mul %[[T]], %[[V]]
// CHECK-NEXT:      tj.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]]

// A view reads memory: the exp is materialised and the slices read its result.
// CHECK-LABEL: func.func @view_of_a_result
// CHECK-NEXT:    %[[E:.*]] = tj.exp %{{.*}} : tensor<10xf32>
// CHECK-NEXT:    %[[K:.*]] = tj.fused %[[E]] : (tensor<10xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[EA:.*]]: tensor<10xf32>):
// CHECK-NEXT:      tj.slice %[[EA]], start = [0]
// CHECK-NEXT:      tj.slice %[[EA]], start = [2]
// CHECK-NEXT:      tj.sub
// CHECK-NEXT:      tj.yield

// CHECK-LABEL: func.func @slice_sum
// CHECK-NEXT:    %[[K:.*]] = tj.fused %{{.*}} : (tensor<10xf32>) -> tensor<f32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: tensor<10xf32>):
// CHECK-NEXT:      %[[L:.*]] = tj.slice %[[A]], start = [0]
// CHECK-NEXT:      %[[R:.*]] = tj.slice %[[A]], start = [1]
// CHECK-NEXT:      %[[D:.*]] = tj.sub %[[R]], %[[L]]
// CHECK-NEXT:      %[[S:.*]] = tj.reduce "sum" %[[D]], axes = [0]
// CHECK-NEXT:      tj.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]]
