// bufferize of tj.scatter (a[idx] = v, flattened): the old value is an input, so it is
// copied into the result buffer first; then one loop over the indices wraps and checks
// each index (cf.assert) and stores its update, in order (a repeated index keeps the last).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<6xf32>, %v: tensor<3xf32>, %idx: tensor<3xi64>) -> tensor<6xf32> {
    %r = tj.scatter %v into %a[%idx], "IndexError: index out of bounds in an assignment" : tensor<3xf32> into tensor<6xf32>, tensor<3xi64>
    func.return %r : tensor<6xf32>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: memref<6xf32>, %[[V:.*]]: memref<3xf32>, %[[IDX:.*]]: memref<3xi64>, %[[OUT:.*]]: memref<6xf32>)
// CHECK:      linalg.generic {{.*}} ins(%[[A]] : memref<6xf32>) outs(%[[OUT]] : memref<6xf32>)
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   %[[RAW:.*]] = memref.load %[[IDX]][%[[K]]] : memref<3xi64>
// CHECK:        arith.select
// CHECK:        cf.assert %{{.*}}, "IndexError: index out of bounds in an assignment"
// CHECK:        %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:   %[[X:.*]] = memref.load %[[V]][%[[K]]] : memref<3xf32>
// CHECK-NEXT:   memref.store %[[X]], %[[OUT]][%[[POS]]] : memref<6xf32>
