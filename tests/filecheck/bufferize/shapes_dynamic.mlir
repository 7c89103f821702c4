// bufferize of shape ops on dims unknown at trace time (`?`): the result buffer's
// run-time sizes come from the operand (memref.dim) or the op's `sizes` (slice, reshape);
// a run-time start is added to the scaled loop index. The index arithmetic the frontend
// staged (frontend/staging/slice_bounds.py: here x[-3:]) is copied as it is.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @dynamic(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<3x?xf32>, tensor<?x1x3xf32>, tensor<3xf32>, tensor<?xf32>) {
    %n = tj.dim %x, 0 : tensor<?x3xf32>
    %minus3 = arith.constant -3 : index
    %zero = arith.constant 0 : index
    %from = arith.addi %n, %minus3 : index
    %start = arith.maxsi %from, %zero : index
    %count = arith.subi %n, %start : index
    %s = tj.slice %x, start = [-9223372036854775808, 0], step = [1, 1] starts(%start) sizes(%count) : tensor<?x3xf32> to tensor<?x3xf32>
    %t = tj.transpose %x, permutation = [1, 0] : tensor<?x3xf32> to tensor<3x?xf32>
    %e = tj.reshape %x sizes(%n) : tensor<?x3xf32> to tensor<?x1x3xf32>
    %last = tj.constant dense<-1> : tensor<i64>
    %g = tj.gather %x[%last], axis = 0, "IndexError: index -1 is out of bounds for axis 0" : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
    %three = arith.constant 3 : index
    %n3 = arith.muli %three, %n : index
    %f = tj.reshape %x sizes(%n3) : tensor<?x3xf32> to tensor<?xf32>
    func.return %s, %t, %e, %g, %f : tensor<?x3xf32>, tensor<3x?xf32>, tensor<?x1x3xf32>, tensor<3xf32>, tensor<?xf32>
  }
}

// CHECK:      func.func @dynamic(%[[X:.*]]: memref<?x3xf32>, %[[S:.*]]: memref<?x3xf32>, %[[T:.*]]: memref<3x?xf32>, %[[E:.*]]: memref<?x1x3xf32>, %[[G:.*]]: memref<3xf32>, %[[F:.*]]: memref<?xf32>) {
// CHECK:        %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x3xf32>
// CHECK:        %[[FROM:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK-NEXT:   %[[START:.*]] = arith.maxsi %[[FROM]], %{{.*}} : index
// CHECK-NEXT:   %[[COUNT:.*]] = arith.subi %[[N]], %[[START]] : index

// slice: row i of the result is row start + i of x.
// CHECK:        linalg.generic {{.*}} outs(%[[S]] : memref<?x3xf32>) {
// CHECK:          %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.addi %[[I]], %[[START]] : index
// CHECK:          memref.load %[[X]][%[[ROW]], %{{.*}}] : memref<?x3xf32>

// transpose and a unit-dim reshape keep their maps; only the sizes are dynamic.
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} ins(%[[X]] : memref<?x3xf32>) outs(%[[T]] : memref<3x?xf32>)
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}}} ins(%[[X]] : memref<?x3xf32>) outs(%[[E]] : memref<?x1x3xf32>)

// a 0-d gather index is checked once, before the loop, against the run-time size
// (so x[5] of an empty row still fails), then used by every element.
// CHECK:        %[[RAW:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK:        %[[SIZE:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:        %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[SIZE]] : i64
// CHECK-NEXT:   cf.assert %[[OK]], "IndexError: index -1 is out of bounds for axis 0"
// CHECK-NEXT:   %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], {{.*}}} outs(%[[G]] : memref<3xf32>)
// CHECK:          memref.load %[[X]][%[[POS]], %{{.*}}] : memref<?x3xf32>

// flattening: result position p is row p / 3, column p % 3 of x (x.reshape(-1)).
// CHECK:        linalg.generic {{.*}} outs(%[[F]] : memref<?xf32>) {
// CHECK:          %[[P:.*]] = linalg.index 0 : index
// CHECK:          %[[ROW:.*]] = arith.divui %[[P]], %{{.*}} : index
// CHECK:          %[[COL:.*]] = arith.remui %[[P]], %{{.*}} : index
// CHECK:          memref.load %[[X]][%[[ROW]], %[[COL]]] : memref<?x3xf32>
// CHECK:        func.return
