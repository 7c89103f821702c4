// bufferize: a short argmax/argmin (under 64 elements per result, reduce_arg_long.mlir has
// the long ones) is one generic with two outputs, the best value so far (a
// temporary filled with -inf / +inf) and its flat index (the result, filled with 0); the
// index comes from linalg.index, row-major over the reduced axes. any/all are or/and
// reductions of i1 from false/true. (Small scratch buffers live on the stack.)
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x3xf32>, %n: tensor<5xi8>, %b: tensor<4x3xi1>) -> (tensor<i64>, tensor<i64>, tensor<3xi1>) {
    %i = tj.reduce "argmax" %x, axes = [0, 1] : tensor<4x3xf32> to tensor<i64>
    %j = tj.reduce "argmin" %n, axes = [0] : tensor<5xi8> to tensor<i64>
    %a = tj.reduce "all" %b, axes = [0] : tensor<4x3xi1> to tensor<3xi1>
    func.return %i, %j, %a : tensor<i64>, tensor<i64>, tensor<3xi1>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<4x3xf32>, %[[N:.*]]: memref<5xi8>, %[[B:.*]]: memref<4x3xi1>, %[[I:.*]]: memref<i64>, %[[J:.*]]: memref<i64>, %[[A:.*]]: memref<3xi1>) {
// CHECK-NEXT:   %[[BEST:.*]] = memref.alloca() alignment = 64 : memref<f32>
// CHECK-NEXT:   linalg.generic {{.*}} outs(%[[BEST]] : memref<f32>)
// CHECK:          arith.constant 0xff800000 : f32
// CHECK:        linalg.generic {{.*}} outs(%[[I]] : memref<i64>)
// CHECK:          arith.constant 0 : i64
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : memref<4x3xf32>) outs(%[[BEST]], %[[I]] : memref<f32>, memref<i64>) {
// CHECK-NEXT:   ^{{.*}}(%[[V:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK-NEXT:     %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.muli %[[D0]], %[[C3]] : index
// CHECK-NEXT:     %[[FLAT:.*]] = arith.addi %[[ROW]], %[[D1]] : index
// CHECK-NEXT:     %[[POS:.*]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:     %[[EARLIER:.*]] = arith.cmpi slt, %[[POS]], %[[IDX]] : i64
// CHECK-NEXT:     arith.cmpf ogt, %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     arith.cmpf oeq, %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:     arith.cmpf ord, %[[ACC]], %[[ACC]] : f32
// CHECK:          %[[NEWV:.*]] = arith.select %[[TAKE:[^,]*]], %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     %[[NEWI:.*]] = arith.select %[[TAKE]], %[[POS]], %[[IDX]] : i64
// CHECK-NEXT:     linalg.yield %[[NEWV]], %[[NEWI]] : f32, i64
// Integers: signed compare, the value temporary starts at INT8_MAX for argmin.
// CHECK:        %[[BESTN:.*]] = memref.alloca() alignment = 64 : memref<i8>
// CHECK:          arith.constant 127 : i8
// CHECK:        linalg.generic {{.*}} ins(%[[N]] : memref<5xi8>) outs(%[[BESTN]], %[[J]] : memref<i8>, memref<i64>)
// CHECK:          arith.cmpi slt, %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:     arith.cmpi eq, %{{.*}}, %{{.*}} : i8
// CHECK:        linalg.generic {{.*}} outs(%[[A]] : memref<3xi1>)
// CHECK:          arith.constant true
// CHECK:        linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[B]] : memref<4x3xi1>) outs(%[[A]] : memref<3xi1>)
// CHECK:          arith.andi
// CHECK-NOT:    memref.dealloc
// CHECK:        func.return
