// bufferize of tj.scatter_combine with a unary combiner (np.negative.at, np.square.at):
// each index in order, the old element cast to the updates' element type, the function
// applied, cast back and stored, so a repeated index applies it again. The 0-d updates only
// give the type computed in: they are never loaded.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @negate(%a: tensor<4xf64>, %t: tensor<f64>, %idx: tensor<?xi64>) -> tensor<4xf64> {
    %r = tj.scatter_combine "tj.neg" %t into %a[%idx], "IndexError: index out of bounds" : tensor<f64> into tensor<4xf64>, tensor<?xi64>
    func.return %r : tensor<4xf64>
  }
  func.func @square(%a: tensor<4xi8>, %t: tensor<i8>, %idx: tensor<?xi64>) -> tensor<4xi8> {
    %r = tj.scatter_combine "square" %t into %a[%idx], "IndexError: index out of bounds" : tensor<i8> into tensor<4xi8>, tensor<?xi64>
    func.return %r : tensor<4xi8>
  }
}

// CHECK:      func.func @negate(%[[A:.*]]: memref<4xf64>, %[[T:.*]]: memref<f64>, %[[IDX:.*]]: memref<?xi64>, %[[OUT:.*]]: memref<4xf64>)
// CHECK-NOT:  memref.load %[[T]]
// CHECK:      scf.for
// CHECK:        %[[OLD:.*]] = memref.load %[[OUT]][%{{.*}}] : memref<4xf64>
// CHECK-NEXT:   %[[NEW:.*]] = arith.negf %[[OLD]] : f64
// CHECK-NEXT:   memref.store %[[NEW]], %[[OUT]][%{{.*}}] : memref<4xf64>
// CHECK:      func.func @square
// CHECK:        %[[OLD8:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xi8>
// CHECK-NEXT:   %[[SQ:.*]] = arith.muli %[[OLD8]], %[[OLD8]] : i8
// CHECK-NEXT:   memref.store %[[SQ]], %{{.*}}[%{{.*}}] : memref<4xi8>
