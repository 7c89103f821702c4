// bufferize of tj.scatter_combine (np.add.at on int32 with float64 updates, as NumPy's
// loop): the old value is an input, so it is copied into the result buffer first; then one
// loop over the indices wraps and checks each index (cf.assert: never a write out of
// bounds), loads the element, widens it to the updates' type, adds, truncates back and
// stores -- so a repeated index accumulates every update.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<6xi32>, %v: tensor<3xf64>, %idx: tensor<3xi64>) -> tensor<6xi32> {
    %r = tj.scatter_combine "tj.add" %v into %a[%idx], "IndexError: index out of bounds in np.add.at" : tensor<3xf64> into tensor<6xi32>, tensor<3xi64>
    func.return %r : tensor<6xi32>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: memref<6xi32>, %[[V:.*]]: memref<3xf64>, %[[IDX:.*]]: memref<3xi64>, %[[OUT:.*]]: memref<6xi32>)
// CHECK:      linalg.generic {{.*}} ins(%[[A]] : memref<6xi32>) outs(%[[OUT]] : memref<6xi32>)
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   %[[RAW:.*]] = memref.load %[[IDX]][%[[K]]] : memref<3xi64>
// CHECK:        arith.select
// CHECK:        cf.assert %{{.*}}, "IndexError: index out of bounds in np.add.at"
// CHECK:        %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:   %[[OLD:.*]] = memref.load %[[OUT]][%[[POS]]] : memref<6xi32>
// CHECK-NEXT:   %[[WIDE:.*]] = arith.sitofp %[[OLD]] : i32 to f64
// CHECK-NEXT:   %[[X:.*]] = memref.load %[[V]][%[[K]]] : memref<3xf64>
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[WIDE]], %[[X]] : f64
// CHECK:        memref.store %{{.*}}, %[[OUT]][%[[POS]]] : memref<6xi32>
