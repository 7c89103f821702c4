// bufferize: an argmax/argmin whose reduced axes do not reach the last axis
// (reduce_arg_blocked.mlir has the others) is one generic with two outputs, the best value so far (a temporary
// filled with -inf / +inf) and its flat index (the result, filled with 0); the index comes
// from linalg.index, row-major over the reduced axes. An element replaces the best if it
// beats it (greater, or the first NaN) or is as good (equal, or NaN) and earlier. Its loop
// runs across the contiguous kept dim, which vectorises. any/all are or/and reductions of
// i1 from false/true. (Small scratch buffers live on the stack.)
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x3x2xf32>, %n: tensor<5x2xi8>, %b: tensor<4x3xi1>) -> (tensor<2xi64>, tensor<2xi64>, tensor<3xi1>) {
    %i = tj.reduce "argmax" %x, axes = [0, 1] : tensor<4x3x2xf32> to tensor<2xi64>
    %j = tj.reduce "argmin" %n, axes = [0] : tensor<5x2xi8> to tensor<2xi64>
    %a = tj.reduce "all" %b, axes = [0] : tensor<4x3xi1> to tensor<3xi1>
    func.return %i, %j, %a : tensor<2xi64>, tensor<2xi64>, tensor<3xi1>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<4x3x2xf32>, %[[N:.*]]: memref<5x2xi8>, %[[B:.*]]: memref<4x3xi1>, %[[I:.*]]: memref<2xi64>, %[[J:.*]]: memref<2xi64>, %[[A:.*]]: memref<3xi1>) {
// CHECK-NEXT:   %[[BEST:.*]] = memref.alloca() alignment = 64 : memref<2xf32>
// CHECK-NEXT:   linalg.generic {{.*}} outs(%[[BEST]] : memref<2xf32>)
// CHECK:          arith.constant 0xff800000 : f32
// CHECK:        linalg.generic {{.*}} outs(%[[I]] : memref<2xi64>)
// CHECK:          arith.constant 0 : i64
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>], iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[X]] : memref<4x3x2xf32>) outs(%[[BEST]], %[[I]] : memref<2xf32>, memref<2xi64>) {
// CHECK-NEXT:   ^{{.*}}(%[[V:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK-NEXT:     %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:     %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.muli %[[D0]], %[[C3]] : index
// CHECK-NEXT:     %[[FLAT:.*]] = arith.addi %[[ROW]], %[[D1]] : index
// CHECK-NEXT:     %[[POS:.*]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:     %[[EARLIER:.*]] = arith.cmpi slt, %[[POS]], %[[IDX]] : i64
// CHECK-NEXT:     arith.cmpf oeq, %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:     %[[AS_GOOD:.*]] = arith.ori
// CHECK-NEXT:     arith.cmpf ogt, %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:     arith.cmpf ord, %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT:     arith.andi
// CHECK-NEXT:     %[[BEATS:.*]] = arith.ori
// CHECK-NEXT:     %[[LATER_TIE:.*]] = arith.andi %[[EARLIER]], %[[AS_GOOD]] : i1
// CHECK-NEXT:     %[[TAKE:.*]] = arith.ori %[[BEATS]], %[[LATER_TIE]] : i1
// CHECK-NEXT:     %[[NEWV:.*]] = arith.select %[[TAKE]], %[[V]], %[[ACC]] : f32
// CHECK-NEXT:     %[[NEWI:.*]] = arith.select %[[TAKE]], %[[POS]], %[[IDX]] : i64
// CHECK-NEXT:     linalg.yield %[[NEWV]], %[[NEWI]] : f32, i64
// Integers: signed compare, the value temporary starts at INT8_MAX for argmin.
// CHECK:        %[[BESTN:.*]] = memref.alloca() alignment = 64 : memref<2xi8>
// CHECK:          arith.constant 127 : i8
// CHECK:        linalg.generic {{.*}} ins(%[[N]] : memref<5x2xi8>) outs(%[[BESTN]], %[[J]] : memref<2xi8>, memref<2xi64>)
// CHECK:          arith.cmpi eq, %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:     arith.cmpi slt, %{{.*}}, %{{.*}} : i8
// CHECK:        linalg.generic {{.*}} outs(%[[A]] : memref<3xi1>)
// CHECK:          arith.constant true
// CHECK:        linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[B]] : memref<4x3xi1>) outs(%[[A]] : memref<3xi1>)
// CHECK:          arith.andi
// CHECK-NOT:    memref.dealloc
// CHECK:        func.return
