// bufferize of tj.scatter_combine with a 0-d update (np.bincount's 1s): the update is
// loaded once, before the loop -- no array of ones.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @count(%a: tensor<4xi64>, %one: tensor<i64>, %idx: tensor<?xi64>) -> tensor<4xi64> {
    %r = tj.scatter_combine "tj.add" %one into %a[%idx], "IndexError: bin number out of range" : tensor<i64> into tensor<4xi64>, tensor<?xi64>
    func.return %r : tensor<4xi64>
  }
}

// CHECK:      func.func @count(%[[A2:.*]]: memref<4xi64>, %[[ONE:.*]]: memref<i64>, %[[IDX2:.*]]: memref<?xi64>, %[[OUT2:.*]]: memref<4xi64>)
// CHECK:      %[[X1:.*]] = memref.load %[[ONE]][] : memref<i64>
// CHECK:      scf.for
// CHECK:        %[[OLD2:.*]] = memref.load %[[OUT2]][%{{.*}}] : memref<4xi64>
// CHECK-NEXT:   %[[SUM2:.*]] = arith.addi %[[OLD2]], %[[X1]] : i64
// CHECK-NEXT:   memref.store %[[SUM2]], %[[OUT2]][%{{.*}}] : memref<4xi64>
