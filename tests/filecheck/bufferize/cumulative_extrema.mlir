// bufferize of tj.cumulative "max" / "min" (np.maximum.accumulate, np.minimum.accumulate):
// the same loops as a running sum, each element combined with the result before it by the
// scalar form of tj.maximum / tj.minimum (NaN-propagating for floats, as NumPy's).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @peaks(%x: tensor<6xf64>, %n: tensor<5xi32>) -> (tensor<6xf64>, tensor<5xi32>) {
    %m = tj.cumulative "max" %x, axis = 0 : tensor<6xf64>
    %l = tj.cumulative "min" %n, axis = 0 : tensor<5xi32>
    func.return %m, %l : tensor<6xf64>, tensor<5xi32>
  }
}

// CHECK:      func.func @peaks(%[[X:.*]]: memref<6xf64>, %[[N:.*]]: memref<5xi32>, %[[M:.*]]: memref<6xf64>, %[[L:.*]]: memref<5xi32>) {
// CHECK:        scf.for
// CHECK:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK-NEXT:     %[[ACC:.*]] = memref.load %[[M]][%[[PREV]]] : memref<6xf64>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[X]][%[[K]]] : memref<6xf64>
// CHECK-NEXT:     %[[R:.*]] = arith.maximumf %[[ACC]], %[[V]] : f64
// CHECK-NEXT:     memref.store %[[R]], %[[M]][%[[K]]] : memref<6xf64>
// CHECK:        scf.for
// CHECK:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     %[[PREV:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK-NEXT:     %[[ACC:.*]] = memref.load %[[L]][%[[PREV]]] : memref<5xi32>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[N]][%[[K]]] : memref<5xi32>
// CHECK-NEXT:     %[[R:.*]] = arith.minsi %[[ACC]], %[[V]] : i32
// CHECK-NEXT:     memref.store %[[R]], %[[L]][%[[K]]] : memref<5xi32>
