// bufferize: a view inside a tj.fused kernel is read where it says, with no buffer of its
// own: a transpose through its permutation map, a slice (shifted, strided or reversed) by a
// load of the operand's buffer at start + i * step in the body, a reshape of a 1-D array
// by a load at the row-major position. An operand read through a
// slice as well as with the identity map is never overwritten by the result (in place),
// since the slice reads elements other than the one being written.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @stencil(%a: tensor<10xf32>) -> tensor<8xf32> {
    %t = tj.fused %a : (tensor<10xf32>) -> tensor<8xf32> {
    ^bb0(%x: tensor<10xf32>):
      %l = tj.slice %x, start = [0], step = [1] : tensor<10xf32> to tensor<8xf32>
      %r = tj.slice %x, start = [2], step = [1] : tensor<10xf32> to tensor<8xf32>
      %s = tj.add %l, %r : tensor<8xf32>
      tj.yield %s : tensor<8xf32>
    }
    func.return %t : tensor<8xf32>
  }
  func.func @reversed_transposed(%a: tensor<4x3xf32>, %b: tensor<3x8xf32>) -> tensor<3x4xf32> {
    %s = tj.fused %a, %b : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<3x4xf32> {
    ^bb0(%x: tensor<4x3xf32>, %y: tensor<3x8xf32>):
      %t = tj.transpose %x, permutation = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
      %v = tj.slice %y, start = [2, 1], step = [-1, 2] : tensor<3x8xf32> to tensor<3x4xf32>
      %m = tj.mul %t, %v : tensor<3x4xf32>
      tj.yield %m : tensor<3x4xf32>
    }
    func.return %s : tensor<3x4xf32>
  }
  func.func @reshape_of_1d(%a: tensor<12xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %s = tj.fused %a, %b : (tensor<12xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> {
    ^bb0(%x: tensor<12xf32>, %y: tensor<3x4xf32>):
      %r = tj.reshape %x : tensor<12xf32> to tensor<3x4xf32>
      %d = tj.add %r, %y : tensor<3x4xf32>
      tj.yield %d : tensor<3x4xf32>
    }
    func.return %s : tensor<3x4xf32>
  }
  func.func @not_in_place(%a: tensor<128xf32>) -> tensor<128xf32> {
    %e = tj.exp %a : tensor<128xf32>
    %s = tj.fused %e : (tensor<128xf32>) -> tensor<128xf32> {
    ^bb0(%x: tensor<128xf32>):
      %r = tj.slice %x, start = [127], step = [-1] : tensor<128xf32> to tensor<128xf32>
      %d = tj.sub %x, %r : tensor<128xf32>
      tj.yield %d : tensor<128xf32>
    }
    %n = tj.neg %s : tensor<128xf32>
    func.return %n : tensor<128xf32>
  }
}

// CHECK-LABEL: func.func @stencil
// CHECK-SAME:    (%[[A:.*]]: memref<10xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[OUT]] : memref<8xf32>) {
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[L:.*]] = memref.load %[[A]][%[[I]]] : memref<10xf32>
// CHECK-NEXT:      %[[J:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[P:.*]] = arith.addi %[[J]], %[[TWO]] : index
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[A]][%[[P]]] : memref<10xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @reversed_transposed
// CHECK-SAME:    (%[[A:.*]]: memref<4x3xf32>, %[[B:.*]]: memref<3x8xf32>, %[[OUT:.*]]: memref<3x4xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : memref<4x3xf32>) outs(%[[OUT]] : memref<3x4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[T:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[MINUS:.*]] = arith.constant -1 : index
// CHECK-NEXT:      %[[NI:.*]] = arith.muli %[[I]], %[[MINUS]] : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.addi %[[NI]], %[[TWO]] : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[TWO2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[J2:.*]] = arith.muli %[[J]], %[[TWO2]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %[[J2]], %[[ONE]] : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[B]][%[[ROW]], %[[COL]]] : memref<3x8xf32>
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[T]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32

// A reshape of a 1-D argument: loaded at the row-major position i * 4 + j.
// CHECK-LABEL: func.func @reshape_of_1d
// CHECK-SAME:    (%[[A:.*]]: memref<12xf32>, %[[B:.*]]: memref<3x4xf32>, %[[OUT:.*]]: memref<3x4xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B]] : memref<3x4xf32>) outs(%[[OUT]] : memref<3x4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I]], %[[FOUR]] : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[P:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[A]][%[[P]]] : memref<12xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.addf %[[R]], %[[Y]] : f32

// The exp's buffer is dead after the kernel but read reversed: the kernel writes a new one.
// CHECK-LABEL: func.func @not_in_place
// CHECK:         %[[E:.*]] = memref.alloc() : memref<128xf32>
// CHECK:         %[[K:.*]] = memref.alloc() : memref<128xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[E]] : memref<128xf32>) outs(%[[K]] : memref<128xf32>)
// CHECK:           memref.load %[[E]]
