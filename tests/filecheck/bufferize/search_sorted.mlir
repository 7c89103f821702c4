// bufferize of tj.search_sorted: a loop over the values, each a branch-free binary search
// with a fixed trip count (bit_length(11) = 4 turns for a static length): the probe is
// clamped into the sorted buffer, NaN sorts last (cmpf uno/ord), and selects move `lo`
// and `n`; then the position is stored as i64.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<11xf64>, %v: tensor<8xf64>) -> tensor<8xi64> {
    %r = tj.search_sorted "left" %a, %v : tensor<11xf64>, tensor<8xf64> -> tensor<8xi64>
    func.return %r : tensor<8xi64>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: memref<11xf64>, %[[V:.*]]: memref<8xf64>, %[[OUT:.*]]: memref<8xi64>)
// CHECK:        %[[TURNS:.*]] = arith.constant 4 : index
// CHECK:        scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:     %[[X:.*]] = memref.load %[[V]][%[[I]]] : memref<8xf64>
// CHECK:          %[[LO_OUT:.*]], %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[TURNS]] step %{{.*}} iter_args(%[[LO:.*]] = %{{.*}}, %[[N:.*]] = %{{.*}}) -> (index, index)
// CHECK-NEXT:       %[[HALF:.*]] = arith.shrui %[[N]]
// CHECK-NEXT:       %[[PROBE:.*]] = arith.addi %[[LO]], %[[HALF]]
// CHECK:            %[[INSIDE:.*]] = arith.minui %[[PROBE]]
// CHECK-NEXT:       %[[Y:.*]] = memref.load %[[A]][%[[INSIDE]]] : memref<11xf64>
// CHECK-NEXT:       arith.cmpf olt, %[[Y]], %[[X]]
// CHECK-NEXT:       arith.cmpf uno, %[[X]], %[[X]]
// CHECK:            arith.select
// CHECK-NEXT:       arith.select
// CHECK:          %[[POS:.*]] = arith.index_cast %[[LO_OUT]] : index to i64
// CHECK-NEXT:     memref.store %[[POS]], %[[OUT]][%[[I]]] : memref<8xi64>
