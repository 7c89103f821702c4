// bufferize of tj.fft: the transform becomes loops over split real/imaginary scratch
// buffers. @columns (length 8 = radix 4 then radix 2, along axis 0 of 8x3: the 3 columns
// are one batch, element t of column b at t * 3 + b) loads the columns conjugated (the
// inverse is conj(fft(conj(x)))), runs a radix-4 stage whose twiddles W_8^(j p) come
// from a constant global, a radix-2 stage without twiddles (its m is 1), and stores the
// result scaled by 1 / sqrt(8) ("ortho") and conjugated. @prime (length 17, a prime above
// the largest radix) takes Bluestein's route: the chirp W_34^(j^2 mod 34) and its
// transform are constants, convolved through transforms of length 48 (radices 4, 4, 3).
// @long_prime (2053: length 6144) makes its twiddles and chirp per call, each root the
// product of two small tables' entries.
// RUN: tracejit-opt %s -p bufferize | filecheck %s
// RUN: tracejit-opt %s -p bufferize,lower-to-loops,scf-to-cf | filecheck %s --check-prefix=CF

builtin.module {
  func.func @columns(%x: tensor<8x3xcomplex<f64>>) -> tensor<8x3xcomplex<f64>> {
    %y = tj.fft "inverse" %x, axis = 0, norm = "ortho" : tensor<8x3xcomplex<f64>> to tensor<8x3xcomplex<f64>>
    func.return %y : tensor<8x3xcomplex<f64>>
  }

  func.func @prime(%x: tensor<17xcomplex<f32>>) -> tensor<17xcomplex<f32>> {
    %y = tj.fft "forward" %x, axis = 0, norm = "backward" : tensor<17xcomplex<f32>> to tensor<17xcomplex<f32>>
    func.return %y : tensor<17xcomplex<f32>>
  }

  func.func @long_prime(%x: tensor<2053xcomplex<f32>>) -> tensor<2053xcomplex<f32>> {
    %y = tj.fft "forward" %x, axis = 0, norm = "backward" : tensor<2053xcomplex<f32>> to tensor<2053xcomplex<f32>>
    func.return %y : tensor<2053xcomplex<f32>>
  }
}

// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_twiddles_8_float64_re", type = memref<6xf64>, initial_value = dense<[1.000000e+00, 0.70710678118654757, 1.000000e+00, 0.000000e+00, 1.000000e+00, -0.70710678118654757]> : tensor<6xf64>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_twiddles_8_float64_im", type = memref<6xf64>, initial_value = dense<[0.000000e+00, -0.70710678118654757, 0.000000e+00, -1.000000e+00, 0.000000e+00, -0.70710678118654757]> : tensor<6xf64>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_twiddles_48_float32_re", type = memref<45xf32>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_chirp_17_complex64_re", type = memref<17xf32>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_chirp_kernel_17_complex64_re", type = memref<48xf32>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_roots_6144_fine_re", type = memref<128xf64>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_roots_6144_coarse_re", type = memref<48xf64>
// CHECK-DAG:  "memref.global"() <{sym_name = "__tj_fft_roots_4106_coarse_re", type = memref<33xf64>

// CHECK-LABEL: func.func @columns(
// CHECK-SAME:    %{{.*}}: memref<8x3xcomplex<f64>>, %[[OUT:[^:]*]]: memref<8x3xcomplex<f64>>) {
// CHECK:         %[[TRE:.*]] = memref.get_global @__tj_fft_twiddles_8_float64_re : memref<6xf64>
// CHECK:         %[[ARE:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[AIM:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[BRE:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[BIM:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
//                load: A = conj(x), element t of column b at t * 3 + b
// CHECK:         complex.re
// CHECK-NEXT:    %[[IM:.*]] = complex.im
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[IM]] : f64
// CHECK:         memref.store %[[NEG]], %[[AIM]][%{{.*}}] : memref<?xf64>
//                radix 4, stride 3: q outer, p inner (a stride below 8 is too short a vector)
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK:             memref.load %[[TRE]][%{{.*}}] : memref<6xf64>
// CHECK:             memref.load %[[ARE]][%{{.*}}] : memref<?xf64>
// CHECK:             arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f64
// CHECK:             arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f64
// CHECK:             memref.store %{{.*}}, %[[BIM]][%{{.*}}] : memref<?xf64>
//                radix 2 (m = 1: no twiddles), B -> A
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NOT:         memref<6xf64>
// CHECK:             memref.load %[[BRE]][%{{.*}}] : memref<?xf64>
// CHECK:             memref.store %{{.*}}, %[[AIM]][%{{.*}}] : memref<?xf64>
//                store: out = conj(A) / sqrt(8)
// CHECK:         %[[SCALE:.*]] = arith.constant 0.35355339059327373 : f64
// CHECK-NEXT:    %[[RE:.*]] = arith.mulf %{{.*}}, %[[SCALE]] fastmath<contract> : f64
// CHECK:         %[[IMS:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f64
// CHECK-NEXT:    %[[CONJ:.*]] = arith.negf %[[IMS]] : f64
// CHECK-NEXT:    %[[Z:.*]] = complex.create %[[RE]], %[[CONJ]] : complex<f64>
// CHECK-NEXT:    memref.store %[[Z]], %[[OUT]][%{{.*}}, %{{.*}}] : memref<8x3xcomplex<f64>>
// CHECK:         memref.dealloc %[[ARE]] : memref<?xf64>
// CHECK:         func.return

// CHECK-LABEL: func.func @prime(
// CHECK:         memref.get_global @__tj_fft_twiddles_48_float32_re : memref<45xf32>
// CHECK:         memref.get_global @__tj_fft_chirp_17_complex64_re : memref<17xf32>
// CHECK:         memref.get_global @__tj_fft_chirp_kernel_17_complex64_re : memref<48xf32>
// CHECK-NOT:     arith.remui
// CHECK:         func.return

// CHECK-LABEL: func.func @long_prime(
//                the twiddles of length 6144: W^(p * step) = coarse[e >> 7] * fine[e & 127]
// CHECK:         %[[E:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:         arith.shrui %[[E]], %{{.*}} : index
// CHECK:         arith.andi %[[E]], %{{.*}} : index
// CHECK:         memref.load %{{.*}} : memref<48xf64>
// CHECK:         memref.load %{{.*}} : memref<128xf64>
// CHECK:         arith.truncf %{{.*}} : f64 to f32
//                the chirp: e = j * j mod 4106
// CHECK:         %[[SQ:.*]] = arith.muli %[[J:.*]], %[[J]] : index
// CHECK-NEXT:    %[[E2:.*]] = arith.remui %[[SQ]], %{{.*}} : index
// CHECK:         arith.shrui %[[E2]], %{{.*}} : index
// CHECK:         memref.load %{{.*}} : memref<33xf64>
// CHECK:         func.return

// CF-LABEL: func.func @columns(
// CF-NOT:     scf.
// CF-NOT:     func.call
// CF:         cf.cond_br
// CF:         func.return
