// bufferize: the scalar forms of the element-wise ops NumPy coverage added. Integer division
// never reaches an unguarded divisor (x // 0 == 0, INT_MIN // -1 wraps), float remainder is
// NumPy's divmod on fmod (arith.remf), comparisons write i1 buffers with the predicate of the
// element kind (unsigned: ult), shifts saturate at the bit width, float16 computes in f32.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4xf32>, %i: tensor<4xi8>, %u: tensor<4xui8>, %b: tensor<4xi1>, %h: tensor<4xf16>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xui8>, tensor<4xi8>, tensor<4xi1>, tensor<4xf16>) {
    %fd = tj.floor_divide %i, %i : tensor<4xi8>
    %rem = tj.remainder %i, %i : tensor<4xi8>
    %frem = tj.remainder %x, %x : tensor<4xf32>
    %lt = tj.compare "lt" %u, %u : tensor<4xui8> -> tensor<4xi1>
    %sel = tj.select %lt, %x, %frem : tensor<4xi1>, tensor<4xf32>
    %shr = tj.right_shift %u, %u : tensor<4xui8>
    %shl = tj.left_shift %i, %i : tensor<4xi8>
    %not = tj.bitwise_not %b : tensor<4xi1>
    %he = tj.exp %h : tensor<4xf16>
    func.return %fd, %rem, %frem, %lt, %sel, %shr, %shl, %not, %he : tensor<4xi8>, tensor<4xi8>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xui8>, tensor<4xi8>, tensor<4xi1>, tensor<4xf16>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: memref<4xf32>, %[[I:.*]]: memref<4xi8>, %[[U:.*]]: memref<4xi8>, %[[B:.*]]: memref<4xi1>, %[[H:.*]]: memref<4xf16>, %[[FD:.*]]: memref<4xi8>, %[[REM:.*]]: memref<4xi8>, %[[FREM:.*]]: memref<4xf32>, %[[LT:.*]]: memref<4xi1>, %[[SEL:.*]]: memref<4xf32>, %[[SHR:.*]]: memref<4xi8>, %[[SHL:.*]]: memref<4xi8>, %[[NOT:.*]]: memref<4xi1>, %[[HE:.*]]: memref<4xf16>) {

// floor_divide on i8: the divisor is 1 where it was 0 or -1; those lanes are selected after.
// CHECK:        linalg.generic {{.*}} ins(%[[I]], %[[I]] : memref<4xi8>, memref<4xi8>) outs(%[[FD]] : memref<4xi8>)
// CHECK-NEXT:   ^bb0(%[[A:.*]]: i8, %[[D:.*]]: i8, %{{.*}}: i8):
// CHECK:          %[[ZERO:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i8
// CHECK:          %[[MINUS_ONE:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i8
// CHECK-NEXT:     %[[UNSAFE:.*]] = arith.ori %[[ZERO]], %[[MINUS_ONE]] : i1
// CHECK:          %[[SAFE:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %[[D]] : i8
// CHECK-NEXT:     %{{.*}} = arith.floordivsi %[[A]], %[[SAFE]] : i8
// CHECK:          linalg.yield

// remainder on i8: srem by the safe divisor, moved to the divisor's sign.
// CHECK:        linalg.generic {{.*}} outs(%[[REM]] : memref<4xi8>)
// CHECK:          %[[SAFE2:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:     %{{.*}} = arith.remsi %{{.*}}, %[[SAFE2]] : i8
// CHECK:          arith.xori
// CHECK:          arith.addi
// CHECK:          linalg.yield

// remainder on f32: fmod, then NumPy's sign fix-up; fmod(x, 0) (NaN) where the divisor is 0.
// CHECK:        linalg.generic {{.*}} outs(%[[FREM]] : memref<4xf32>)
// CHECK:          %[[FMOD:.*]] = "arith.remf"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK:          math.copysign
// CHECK:          math.floor
// CHECK:          %[[BZERO:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:          %[[R:.*]] = arith.select %[[BZERO]], %[[FMOD]], %{{.*}} : f32
// CHECK-NEXT:     linalg.yield %[[R]] : f32

// compare "lt" on ui8 writes an i1 buffer with an unsigned predicate.
// CHECK:        linalg.generic {{.*}} ins(%[[U]], %[[U]] : memref<4xi8>, memref<4xi8>) outs(%[[LT]] : memref<4xi1>)
// CHECK-NEXT:   ^bb0(%{{.*}}: i8, %{{.*}}: i8, %{{.*}}: i1):
// CHECK-NEXT:     %[[C:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:     linalg.yield %[[C]] : i1

// select reads the i1 buffer.
// CHECK:        linalg.generic {{.*}} ins(%[[LT]], %[[X]], %[[FREM]] : memref<4xi1>, memref<4xf32>, memref<4xf32>) outs(%[[SEL]] : memref<4xf32>)
// CHECK-NEXT:   ^bb0(%[[COND:.*]]: i1, %[[T:.*]]: f32, %[[F:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:     %[[S:.*]] = arith.select %[[COND]], %[[T]], %[[F]] : f32
// CHECK-NEXT:     linalg.yield %[[S]] : f32

// right_shift on ui8: logical, 0 once the amount reaches 8 (unsigned compare).
// CHECK:        linalg.generic {{.*}} outs(%[[SHR]] : memref<4xi8>)
// CHECK:          %[[FAR:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : i8
// CHECK:          arith.shrui
// CHECK:          arith.select %[[FAR]]

// left_shift on i8.
// CHECK:        linalg.generic {{.*}} outs(%[[SHL]] : memref<4xi8>)
// CHECK:          arith.cmpi uge
// CHECK:          arith.shli

// bitwise_not on bool: xor with true.
// CHECK:        linalg.generic {{.*}} ins(%[[B]] : memref<4xi1>) outs(%[[NOT]] : memref<4xi1>)
// CHECK:          %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:     arith.xori %{{.*}}, %[[TRUE]] : i1

// exp on f16 is computed in f32 and rounded once.
// CHECK:        linalg.generic {{.*}} ins(%[[H]] : memref<4xf16>) outs(%[[HE]] : memref<4xf16>)
// CHECK:          %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:     %[[E:.*]] = math.exp %[[WIDE]] : f32
// CHECK-NEXT:     arith.truncf %[[E]] : f32 to f16
// CHECK:        func.return
