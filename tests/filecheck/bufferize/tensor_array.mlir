// bufferize of the TensorArray ops: tj.set_row writes the row in place when the old array
// is dead (%a1 below) and copies first when it is still read (%a0 is read by get_row
// after the first write); tj.grow reallocates to max(2 * rows, needed) rows only when
// needed > rows; tj.take_rows copies the rows out and tj.export moves that dead
// temporary to the caller, storing [address, dims...] into the descriptor.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<5x3xf32>, %i: tensor<i64>, %v: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
    %z = tj.constant dense<0.0> : tensor<5x3xf32>
    %a0 = tj.add %a, %z : tensor<5x3xf32>
    %a1 = tj.set_row %a0[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<3xf32>
    %a2 = tj.set_row %a1[%i], %v : tensor<5x3xf32>, tensor<i64>, tensor<3xf32>
    %r = tj.get_row %a0[%i] : tensor<5x3xf32>, tensor<i64> -> tensor<3xf32>
    %g = tj.grow %a2, %i : tensor<5x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %s = tj.take_rows %g, %i : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %d = tj.export %s : tensor<?x3xf32> -> tensor<3xi64>
    func.return %r, %d : tensor<3xf32>, tensor<3xi64>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: memref<5x3xf32>, %[[I:.*]]: memref<i64>, %[[V:.*]]: memref<3xf32>, %[[R:.*]]: memref<3xf32>, %[[D:.*]]: memref<3xi64>) {
// CHECK:        linalg.generic {{.*}} ins(%[[A]], %{{.*}} : memref<5x3xf32>, memref<5x3xf32>) outs(%[[A0:[0-9]+]] : memref<5x3xf32>)
// The first write copies %a0 (read again later) into a new buffer:
// CHECK:        %[[A1:.*]] = memref.alloca() {{.*}} : memref<5x3xf32>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[A0]] : memref<5x3xf32>) outs(%[[A1]] : memref<5x3xf32>)
// CHECK:        scf.for
// CHECK-NEXT:     %[[X:.*]] = memref.load %[[V]][%{{.*}}] : memref<3xf32>
// CHECK-NEXT:     memref.store %[[X]], %[[A1]][%{{.*}}, %{{.*}}] : memref<5x3xf32>
// The second write is in place (%a1 is dead): no copy, the store goes to the same buffer.
// CHECK-NOT:    linalg.generic
// CHECK:        scf.for
// CHECK-NEXT:     memref.load %[[V]]
// CHECK-NEXT:     memref.store %{{.*}}, %[[A1]][
// get_row reads %a0 into the result buffer:
// CHECK:        memref.load %[[A0]][
// CHECK-NEXT:   memref.store %{{.*}}, %[[R]][
// grow: capacity = needed > rows ? max(2 * rows, needed) : rows; a copy (the operand is on the stack)
// CHECK:        %[[ROWS:.*]] = arith.constant 5 : index
// CHECK:        %[[TWICE:.*]] = arith.muli %[[ROWS]], %{{.*}} : index
// CHECK-NEXT:   %[[BIG:.*]] = arith.maxui %[[TWICE]], %[[NEED:.*]] : index
// CHECK-NEXT:   %[[SHORT:.*]] = arith.cmpi ugt, %[[NEED]], %[[ROWS]] : index
// CHECK-NEXT:   %[[CAP:.*]] = arith.select %[[SHORT]], %[[BIG]], %[[ROWS]] : index
// CHECK-NEXT:   %[[G:.*]] = memref.alloc(%[[CAP]]) : memref<?x3xf32>
// take_rows + export: the copy is moved to the caller (never freed here)
// CHECK:        %[[S:.*]] = memref.alloc(%{{.*}}) : memref<?x3xf32>
// CHECK:        %[[P:.*]] = "memref.extract_aligned_pointer_as_index"(%[[S]]) : (memref<?x3xf32>) -> index
// CHECK:        memref.store %{{.*}}, %[[D]][%{{.*}}] : memref<3xi64>
// CHECK:        memref.dealloc %[[G]] : memref<?x3xf32>
// CHECK-NOT:    memref.dealloc %[[S]]
// CHECK:        func.return
