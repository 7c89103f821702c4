// bufferize: an argmax/argmin over the trailing axes (a whole array, rows) is scf loops:
// for each kept position (a loop marked tj.parallel), the extreme of each block of 1024
// elements along the last axis (a max/min loop LLVM vectorises), the first block whose
// extreme beats the best so far (greater, or the first NaN) remembered with its bounds,
// then a search of that block alone for the least index holding the best, a minsi from
// INT64_MAX of `index if x == best or x is NaN else INT64_MAX` (a NaN is there only if the
// best is NaN). A row of at most 1024 elements known at trace time is its only block (%r).
// Reduced axes that skip one (%t) take two generics: the extremes, then the first index.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x100xf32>, %n: tensor<?xi8>, %y: tensor<3x4x100xf32>) -> (tensor<4xi64>, tensor<i64>, tensor<4xi64>) {
    %r = tj.reduce "argmax" %x, axes = [1] : tensor<4x100xf32> to tensor<4xi64>
    %m = tj.reduce "argmin" %n, axes = [0] : tensor<?xi8> to tensor<i64>
    %t = tj.reduce "argmax" %y, axes = [0, 2] : tensor<3x4x100xf32> to tensor<4xi64>
    func.return %r, %m, %t : tensor<4xi64>, tensor<i64>, tensor<4xi64>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<4x100xf32>, %[[N:.*]]: memref<?xi8>, %[[Y:.*]]: memref<3x4x100xf32>, %[[R:.*]]: memref<4xi64>, %[[M:.*]]: memref<i64>, %[[T:.*]]: memref<4xi64>) {
// CHECK:        scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:          %[[C100:.*]] = arith.constant 100 : index
// CHECK:          %[[BEST:.*]] = scf.for %[[K:.*]] = %[[C0:.*]] to %[[C100]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:       %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[K]]] : memref<4x100xf32>
// CHECK-NEXT:       %[[MAX:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:       scf.yield %[[MAX]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:     %[[FIRST:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[C100]] step %{{.*}} iter_args(%[[F:.*]] = %[[NONE]]) -> (i64) {
// CHECK-NEXT:       %[[W:.*]] = memref.load %[[X]][%[[ROW]], %[[J]]] : memref<4x100xf32>
// CHECK-NEXT:       %[[POS:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:       %[[EQ:.*]] = arith.cmpf oeq, %[[W]], %[[BEST]] : f32
// CHECK-NEXT:       %[[NAN:.*]] = arith.cmpf uno, %[[W]], %[[W]] : f32
// CHECK-NEXT:       %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT:       %[[CAND:.*]] = arith.select %[[HIT]], %[[POS]], %[[NONE]] : i64
// CHECK-NEXT:       %[[LEAST:.*]] = arith.minsi %[[F]], %[[CAND]] : i64
// CHECK-NEXT:       scf.yield %[[LEAST]] : i64
// CHECK-NEXT:     }
// CHECK-NEXT:     memref.store %[[FIRST]], %[[R]][%[[ROW]]] : memref<4xi64>
// CHECK-NEXT:   } {tj.parallel}
// An unknown length: blocks of 1024, the first block that beats the best kept (integers
// compare signed), then that block searched.
// CHECK:        %[[LEN:.*]] = memref.dim %[[N]], %{{.*}} : memref<?xi8>
// CHECK:        %[[BLOCK:.*]] = arith.constant 1024 : index
// CHECK:        %[[BESTN:.*]], %[[LO:.*]], %[[HI:.*]] = scf.for %[[B:.*]] = %{{.*}} to %[[LEN]] step %[[BLOCK]] iter_args(%[[SOFAR:.*]] = %{{.*}}, %[[SOFAR_LO:.*]] = %{{.*}}, %[[SOFAR_HI:.*]] = %{{.*}}) -> (i8, index, index) {
// CHECK:            %[[END:.*]] = arith.addi %[[B]], %{{.*}} : index
// CHECK-NEXT:       %[[BOUND:.*]] = arith.minui %[[END]], %[[LEN]] : index
// CHECK:            %[[EXTREME:.*]] = scf.for %{{.*}} = %[[B]] to %[[BOUND]] step %{{.*}} iter_args(%{{.*}}) -> (i8) {
// CHECK:              arith.minsi %{{.*}}, %{{.*}} : i8
// CHECK:            %[[BEATS:.*]] = arith.cmpi slt, %[[EXTREME]], %[[SOFAR]] : i8
// CHECK-NEXT:       %{{.*}} = arith.select %[[BEATS]], %[[EXTREME]], %[[SOFAR]] : i8
// CHECK-NEXT:       %{{.*}} = arith.select %[[BEATS]], %[[B]], %[[SOFAR_LO]] : index
// CHECK-NEXT:       %{{.*}} = arith.select %[[BEATS]], %[[BOUND]], %[[SOFAR_HI]] : index
// CHECK:          scf.for %{{.*}} = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%{{.*}}) -> (i64) {
// CHECK:            arith.cmpi eq, %{{.*}}, %[[BESTN]] : i8
// CHECK:            arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK:        memref.store %{{.*}}, %[[M]][] : memref<i64>
// Axes 0 and 2: two generics, the extremes into a temporary, then the first index.
// CHECK:        linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[Y]] : memref<3x4x100xf32>) outs(%[[TMP:.*]] : memref<4xf32>)
// CHECK:          arith.maximumf
// CHECK:        linalg.generic {{.*}} ins(%[[Y]], %[[TMP]] : memref<3x4x100xf32>, memref<4xf32>) outs(%[[T]] : memref<4xi64>)
// CHECK:          arith.cmpf oeq
// CHECK:          arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK:        func.return
