// bufferize of tj.scatter_combine with a 0-d update (np.add.at(a, idx, 0.5)): the update
// is loaded once, before the loop -- no array of copies of it.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @count(%a: tensor<4xf64>, %half: tensor<f64>, %idx: tensor<?xi64>) -> tensor<4xf64> {
    %r = tj.scatter_combine "tj.add" %half into %a[%idx], "IndexError: index out of bounds" : tensor<f64> into tensor<4xf64>, tensor<?xi64>
    func.return %r : tensor<4xf64>
  }
}

// CHECK:      func.func @count(%[[A:.*]]: memref<4xf64>, %[[HALF:.*]]: memref<f64>, %[[IDX:.*]]: memref<?xi64>, %[[OUT:.*]]: memref<4xf64>)
// CHECK:      %[[X:.*]] = memref.load %[[HALF]][] : memref<f64>
// CHECK:      scf.for
// CHECK:        %[[OLD:.*]] = memref.load %[[OUT]][%{{.*}}] : memref<4xf64>
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[OLD]], %[[X]] : f64
// CHECK-NEXT:   memref.store %[[SUM]], %[[OUT]][%{{.*}}] : memref<4xf64>
