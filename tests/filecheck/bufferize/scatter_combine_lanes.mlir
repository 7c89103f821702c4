// bufferize of an integer tj.scatter_combine "tj.add" into a small dest (np.bincount, the
// histogram's counts): update k adds into copy k & 3 of the dest (4 lanes of a scratch
// buffer, zeroed first), so runs of one bin do not wait for each other's stores; then each
// element gets the sum of its 4 copies (integer addition: the same result in any order).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @count(%a: tensor<11xi64>, %one: tensor<i64>, %idx: tensor<?xi64>) -> tensor<11xi64> {
    %r = tj.scatter_combine "tj.add" %one into %a[%idx], "IndexError: bin number out of range" : tensor<i64> into tensor<11xi64>, tensor<?xi64>
    func.return %r : tensor<11xi64>
  }
}

// CHECK:      func.func @count(%[[A:.*]]: memref<11xi64>, %[[ONE:.*]]: memref<i64>, %[[IDX:.*]]: memref<?xi64>, %[[OUT:.*]]: memref<11xi64>)
// CHECK:      %[[LANES:.*]] = memref.alloc{{a?}}() {{.*}}: memref<4x11xi64>
// CHECK:      memref.store %{{.*}}, %[[LANES]][%{{.*}}, %{{.*}}] : memref<4x11xi64>
// CHECK:      %[[X:.*]] = memref.load %[[ONE]][] : memref<i64>
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:        cf.assert %{{.*}}, "IndexError: bin number out of range"
// CHECK:        %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:   %[[LANE:.*]] = arith.andi %[[K]], %{{.*}} : index
// CHECK-NEXT:   %[[OLD:.*]] = memref.load %[[LANES]][%[[LANE]], %[[POS]]] : memref<4x11xi64>
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[OLD]], %[[X]] : i64
// CHECK-NEXT:   memref.store %[[SUM]], %[[LANES]][%[[LANE]], %[[POS]]] : memref<4x11xi64>
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   %[[T0:.*]] = memref.load %[[OUT]][%[[I]]] : memref<11xi64>
// CHECK:        %[[P0:.*]] = memref.load %[[LANES]][%{{.*}}, %[[I]]] : memref<4x11xi64>
// CHECK-NEXT:   arith.addi %[[T0]], %[[P0]] : i64
// CHECK:        memref.store %{{.*}}, %[[OUT]][%[[I]]] : memref<11xi64>
