// bufferize: an argmax/argmin along the innermost axis of 64 or more elements per result
// (or of an unknown count) takes two reductions LLVM vectorises: max/min into a temporary
// (maximumf propagates NaN), then the least flat index holding that value, a minsi
// reduction from INT64_MAX of `index if x == extreme or x is NaN else INT64_MAX` (a NaN
// is there only if the extreme is NaN). Along an outer axis it stays one pass (%c).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x100xf32>, %n: tensor<?xi8>, %y: tensor<100x4xf32>) -> (tensor<4xi64>, tensor<i64>, tensor<4xi64>) {
    %r = tj.reduce "argmax" %x, axes = [1] : tensor<4x100xf32> to tensor<4xi64>
    %m = tj.reduce "argmin" %n, axes = [0] : tensor<?xi8> to tensor<i64>
    %c = tj.reduce "argmax" %y, axes = [0] : tensor<100x4xf32> to tensor<4xi64>
    func.return %r, %m, %c : tensor<4xi64>, tensor<i64>, tensor<4xi64>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<4x100xf32>, %[[N:.*]]: memref<?xi8>, %[[Y:.*]]: memref<100x4xf32>, %[[R:.*]]: memref<4xi64>, %[[M:.*]]: memref<i64>, %[[C:.*]]: memref<4xi64>) {
// CHECK:        %[[BEST:.*]] = memref.alloca() alignment = 64 : memref<4xf32>
// CHECK:          arith.constant 0xff800000 : f32
// CHECK:        linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<4x100xf32>) outs(%[[BEST]] : memref<4xf32>) {
// CHECK:          arith.maximumf
// CHECK:        linalg.generic {{.*}} outs(%[[R]] : memref<4xi64>)
// CHECK:          arith.constant 9223372036854775807 : i64
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[BEST]] : memref<4x100xf32>, memref<4xf32>) outs(%[[R]] : memref<4xi64>) {
// CHECK-NEXT:   ^{{.*}}(%[[V:.*]]: f32, %[[MAX:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK-NEXT:     %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:     %[[POS:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK-NEXT:     %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:     %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[MAX]] : f32
// CHECK-NEXT:     %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:     %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT:     %[[CAND:.*]] = arith.select %[[HIT]], %[[POS]], %[[NONE]] : i64
// CHECK-NEXT:     %[[FIRST:.*]] = arith.minsi %[[IDX]], %[[CAND]] : i64
// CHECK-NEXT:     linalg.yield %[[FIRST]] : i64
// An unknown length: two passes too; integers are found by equality.
// CHECK:        linalg.generic {{.*}} ins(%[[N]] : memref<?xi8>) outs(%[[BESTN:.*]] : memref<i8>)
// CHECK:          arith.minsi %{{.*}}, %{{.*}} : i8
// CHECK:        linalg.generic {{.*}} ins(%[[N]], %[[BESTN]] : memref<?xi8>, memref<i8>) outs(%[[M]] : memref<i64>)
// CHECK:          arith.cmpi eq, %{{.*}}, %{{.*}} : i8
// CHECK:          arith.minsi %{{.*}}, %{{.*}} : i64
// Along the outer axis: one generic with two outputs.
// CHECK:        linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[Y]] : memref<100x4xf32>) outs(%{{.*}}, %[[C]] : memref<4xf32>, memref<4xi64>)
// CHECK:        func.return
