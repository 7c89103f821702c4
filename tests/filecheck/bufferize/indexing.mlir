// bufferize: tj.gather reads its index through an input map, wraps negative indices,
// checks bounds with cf.assert BEFORE the load, and loads from the source buffer.
// RUN: tracejit-opt %s -p bufferize | filecheck %s
// RUN: tracejit-opt %s -p bufferize,lower-to-loops,scf-to-cf,lower-asserts | filecheck %s --check-prefix=CF
// CF: tj.messages = ["IndexError: index out of bounds for axis 0 with size 3 (f.py:3)", "IndexError: index out of bounds for axis 1 with size 2 (f.py:4)"]

builtin.module {
  func.func @gather(%x: tensor<3x2xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>) -> (tensor<4x2xf32>, tensor<3x4xf32>) {
    %g = tj.gather %x[%i], axis = 0, "IndexError: index out of bounds for axis 0 with size 3 (f.py:3)" : (tensor<3x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
    %h = tj.gather %x[%u], axis = 1, "IndexError: index out of bounds for axis 1 with size 2 (f.py:4)" : (tensor<3x2xf32>, tensor<4xui8>) -> tensor<3x4xf32>
    func.return %g, %h : tensor<4x2xf32>, tensor<3x4xf32>
  }
}

// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} ins(%{{.*}} : memref<4xi32>) outs(%{{.*}} : memref<4x2xf32>) {
// CHECK-NEXT: ^{{.*}}(%[[IDX:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:   %[[WIDE:.*]] = arith.extsi %[[IDX]] : i32 to i64
// CHECK-NEXT:   %[[N:.*]] = arith.constant 3 : i64
// CHECK:        %[[NEG:.*]] = arith.cmpi slt, %[[WIDE]], %{{.*}} : i64
// CHECK-NEXT:   %[[PLUS:.*]] = arith.addi %[[WIDE]], %[[N]] : i64
// CHECK-NEXT:   %[[WRAP:.*]] = arith.select %[[NEG]], %[[PLUS]], %[[WIDE]] : i64
// CHECK-NEXT:   %[[OK:.*]] = arith.cmpi ult, %[[WRAP]], %[[N]] : i64
// CHECK-NEXT:   cf.assert %[[OK]], "IndexError: index out of bounds for axis 0 with size 3 (f.py:3)"
// CHECK-NEXT:   %[[POS:.*]] = arith.index_cast %[[WRAP]] : i64 to index
// CHECK-NEXT:   %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[V:.*]] = memref.load %{{.*}}[%[[POS]], %[[J]]] : memref<3x2xf32>
// CHECK-NEXT:   linalg.yield %[[V]] : f32

// Unsigned indices never wrap: zero-extend and compare.
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} ins(%{{.*}} : memref<4xi8>)
// CHECK:        arith.extui
// CHECK-NOT:    arith.select
// CHECK:        arith.cmpi ult
// CHECK-NEXT:   cf.assert

// After lowering, a failed check returns its status before the load runs.
// CF:      %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CF-NEXT: cf.cond_br %[[OK]], ^[[LOAD:.*]], ^[[FAIL:.*]]
// CF-NEXT: ^[[LOAD]]:
// CF-NEXT:   arith.index_cast
// CF-NEXT:   memref.load
// CF:      ^[[FAIL]]:
// CF-NEXT:   %[[STATUS:.*]] = arith.constant 1 : i32
// CF-NEXT:   func.return %[[STATUS]] : i32
