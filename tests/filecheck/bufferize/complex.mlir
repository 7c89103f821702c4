// bufferize: complex elements stay `complex<fN>` in buffers (NumPy's interleaved layout); a
// loop body takes a complex scalar apart with complex.re/im, computes on the float parts and
// builds the result with complex.create. Multiplication fuses one product per part
// (math.fma), as NumPy's SIMD loops for complex64 and complex128; comparisons are NumPy's lexicographic order (a NaN imaginary part
// voids the real-part comparison); a complex splat is a complex.create of two constants; a
// sum reassociates its two part additions, a cast to float keeps the real part.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>, %c: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f32>>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f64>>, tensor<complex<f32>>, tensor<4xf64>, tensor<4xcomplex<f64>>) {
    %m = tj.mul %a, %b : tensor<4xcomplex<f32>>
    %mm = tj.mul %c, %c : tensor<4xcomplex<f64>>
    %lt = tj.compare "lt" %a, %b : tensor<4xcomplex<f32>> -> tensor<4xi1>
    %re = tj.real %m : tensor<4xcomplex<f32>> to tensor<4xf32>
    %i = tj.constant dense<(0.0, 1.0)> : tensor<4xcomplex<f64>>
    %s = tj.reduce "sum" %a, axes = [0] : tensor<4xcomplex<f32>> to tensor<complex<f32>>
    %w = tj.cast %i : tensor<4xcomplex<f64>> to tensor<4xf64>
    func.return %m, %lt, %re, %i, %s, %w, %mm : tensor<4xcomplex<f32>>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f64>>, tensor<complex<f32>>, tensor<4xf64>, tensor<4xcomplex<f64>>
  }
}

// CHECK:      func.func @f(%[[A:.*]]: memref<4xcomplex<f32>>, %[[B:.*]]: memref<4xcomplex<f32>>, %[[C:.*]]: memref<4xcomplex<f64>>, %[[M:.*]]: memref<4xcomplex<f32>>, %[[LT:.*]]: memref<4xi1>, %[[RE:.*]]: memref<4xf32>, %[[I:.*]]: memref<4xcomplex<f64>>, %[[S:.*]]: memref<complex<f32>>, %[[W:.*]]: memref<4xf64>, %[[MM:.*]]: memref<4xcomplex<f64>>) {

// complex64 a * b = (fma(ar, br, -(ai * bi)), fma(ar, bi, ai * br))
// CHECK:        linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<4xcomplex<f32>>, memref<4xcomplex<f32>>) outs(%[[M]] : memref<4xcomplex<f32>>)
// CHECK-NEXT:   ^bb0(%[[X:.*]]: complex<f32>, %[[Y:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK-NEXT:     %[[XR:.*]] = complex.re %[[X]] : complex<f32>
// CHECK-NEXT:     %[[XI:.*]] = complex.im %[[X]] : complex<f32>
// CHECK-NEXT:     %[[YR:.*]] = complex.re %[[Y]] : complex<f32>
// CHECK-NEXT:     %[[YI:.*]] = complex.im %[[Y]] : complex<f32>
// CHECK-NEXT:     %[[II:.*]] = arith.mulf %[[XI]], %[[YI]] : f32
// CHECK-NEXT:     %[[NII:.*]] = arith.negf %[[II]] : f32
// CHECK-NEXT:     %[[MR:.*]] = math.fma %[[XR]], %[[YR]], %[[NII]] : f32
// CHECK-NEXT:     %[[IR:.*]] = arith.mulf %[[XI]], %[[YR]] : f32
// CHECK-NEXT:     %[[MI:.*]] = math.fma %[[XR]], %[[YI]], %[[IR]] : f32
// CHECK-NEXT:     %[[P:.*]] = complex.create %[[MR]], %[[MI]] : complex<f32>
// CHECK-NEXT:     linalg.yield %[[P]] : complex<f32>

// complex128 c * c = (fma(cr, cr, -(ci * ci)), fma(cr, ci, ci * cr))
// CHECK:        linalg.generic {{.*}} ins(%[[C]], %[[C]] : memref<4xcomplex<f64>>, memref<4xcomplex<f64>>) outs(%[[MM]] : memref<4xcomplex<f64>>)
// CHECK-NEXT:   ^bb0(%[[U:.*]]: complex<f64>, %[[V:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-NEXT:     %[[UR:.*]] = complex.re %[[U]] : complex<f64>
// CHECK-NEXT:     %[[UI:.*]] = complex.im %[[U]] : complex<f64>
// CHECK-NEXT:     %[[VR:.*]] = complex.re %[[V]] : complex<f64>
// CHECK-NEXT:     %[[VI:.*]] = complex.im %[[V]] : complex<f64>
// CHECK-NEXT:     %[[UIVI:.*]] = arith.mulf %[[UI]], %[[VI]] : f64
// CHECK-NEXT:     %[[NEG:.*]] = arith.negf %[[UIVI]] : f64
// CHECK-NEXT:     %[[PR:.*]] = math.fma %[[UR]], %[[VR]], %[[NEG]] : f64
// CHECK-NEXT:     %[[UIVR:.*]] = arith.mulf %[[UI]], %[[VR]] : f64
// CHECK-NEXT:     %[[PI:.*]] = math.fma %[[UR]], %[[VI]], %[[UIVR]] : f64
// CHECK-NEXT:     %[[Q:.*]] = complex.create %[[PR]], %[[PI]] : complex<f64>
// CHECK-NEXT:     linalg.yield %[[Q]] : complex<f64>

// a < b = (ar < br and ai, bi not NaN) or (ar == br and ai < bi)
// CHECK:        linalg.generic {{.*}} outs(%[[LT]] : memref<4xi1>)
// CHECK:          %[[BYRE:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:     %[[ORD:.*]] = arith.cmpf ord, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:     %[[FIRST:.*]] = arith.andi %[[BYRE]], %[[ORD]] : i1
// CHECK-NEXT:     %[[TIE:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:     %[[BYIM:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:     %[[SECOND:.*]] = arith.andi %[[TIE]], %[[BYIM]] : i1
// CHECK-NEXT:     %[[LESS:.*]] = arith.ori %[[FIRST]], %[[SECOND]] : i1
// CHECK-NEXT:     linalg.yield %[[LESS]] : i1

// tj.real reads the real part
// CHECK:        linalg.generic {{.*}} ins(%[[M]] : memref<4xcomplex<f32>>) outs(%[[RE]] : memref<4xf32>)
// CHECK-NEXT:   ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: f32):
// CHECK-NEXT:     %[[ZR:.*]] = complex.re %[[Z]] : complex<f32>
// CHECK:          linalg.yield %[[ZR]] : f32

// the splat 1j: complex.create of 0.0 and 1.0
// CHECK:        linalg.generic {{.*}} outs(%[[I]] : memref<4xcomplex<f64>>)
// CHECK-NEXT:   ^bb0(%{{.*}}: complex<f64>):
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:     %[[J:.*]] = complex.create %[[ZERO]], %[[ONE]] : complex<f64>
// CHECK-NEXT:     linalg.yield %[[J]] : complex<f64>

// the sum: filled with 0 + 0j, then both parts added with reassoc
// CHECK:        linalg.generic {{.*}} outs(%[[S]] : memref<complex<f32>>)
// CHECK:          complex.create
// CHECK:        linalg.generic {{.*}} ins(%[[A]] : memref<4xcomplex<f32>>) outs(%[[S]] : memref<complex<f32>>)
// CHECK:          arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-NEXT:     arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-NEXT:     complex.create

// complex128 -> float64 keeps the real part
// CHECK:        linalg.generic {{.*}} ins(%[[I]] : memref<4xcomplex<f64>>) outs(%[[W]] : memref<4xf64>)
// CHECK-NEXT:   ^bb0(%[[C:.*]]: complex<f64>, %{{.*}}: f64):
// CHECK-NEXT:     %[[CR:.*]] = complex.re %[[C]] : complex<f64>
// CHECK-NEXT:     linalg.yield %[[CR]] : f64

