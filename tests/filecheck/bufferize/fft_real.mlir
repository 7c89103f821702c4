// bufferize of the real tj.fft directions. @rfft (even length 8): the line is packed into
// 4 complex values z[t] = x[2t] + i x[2t+1], transformed by one radix-4 stage, and each
// of the 5 terms X[k] combines Z[k % 4] with conj(Z[(4 - k) % 4]) and the root W_8^k
// (coarse[k >> 2] * fine[k & 3]), halved. @irfft (odd length 7 from 4 terms): the whole
// Hermitian spectrum is rebuilt (X[7 - k] = conj(X[k]), Im X[0] dropped), conjugated for
// the inverse, transformed by one radix-7 stage, and the real parts scaled by 1/7 stored.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @rfft(%x: tensor<8xf64>) -> tensor<5xcomplex<f64>> {
    %y = tj.fft "real_forward" %x, axis = 0, norm = "backward" : tensor<8xf64> to tensor<5xcomplex<f64>>
    func.return %y : tensor<5xcomplex<f64>>
  }

  func.func @irfft(%x: tensor<4xcomplex<f32>>) -> tensor<7xf32> {
    %y = tj.fft "real_inverse" %x, axis = 0, norm = "backward" : tensor<4xcomplex<f32>> to tensor<7xf32>
    func.return %y : tensor<7xf32>
  }
}

// CHECK-LABEL: func.func @rfft(
// CHECK-SAME:    %[[X:[^:]*]]: memref<8xf64>, %[[OUT:[^:]*]]: memref<5xcomplex<f64>>) {
// CHECK:         %[[RE:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[IM:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[FINE:.*]] = memref.get_global @__tj_fft_roots_8_fine_re : memref<4xf64>
//                packed: data[t] = x[2t] + i x[2t+1]
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[EVEN:.*]] = arith.muli %[[T]], %[[TWO]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ODD:.*]] = arith.addi %[[EVEN]], %[[ONE]] : index
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[X]][%[[EVEN]]] : memref<8xf64>
// CHECK-NEXT:      %[[B:.*]] = memref.load %[[X]][%[[ODD]]] : memref<8xf64>
// CHECK:           memref.store %[[A]], %[[RE]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:      memref.store %[[B]], %[[IM]][%{{.*}}] : memref<?xf64>
//                the 5 terms
// CHECK:         %[[FIVE:.*]] = arith.constant 5 : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[FIVE]] step %{{.*}} {
// CHECK:           %[[LOW:.*]] = arith.andi %[[K]], %{{.*}} : index
// CHECK:           memref.load %[[FINE]][%[[LOW]]] : memref<4xf64>
// CHECK:           %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK:           %[[Z:.*]] = complex.create %{{.*}}, %{{.*}} : complex<f64>
// CHECK-NEXT:      memref.store %[[Z]], %[[OUT]][%[[K]]] : memref<5xcomplex<f64>>

// CHECK-LABEL: func.func @irfft(
// CHECK-SAME:    %[[X:[^:]*]]: memref<4xcomplex<f32>>, %[[OUT:[^:]*]]: memref<7xf32>) {
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[LOWER:.*]] = arith.cmpi ule, %[[K]], %{{.*}} : index
// CHECK:           %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[K]] : index
// CHECK-NEXT:      %[[AT:.*]] = arith.select %[[LOWER]], %[[K]], %[[MIRROR]] : index
// CHECK-NEXT:      memref.load %[[X]][%[[AT]]] : memref<4xcomplex<f32>>
// CHECK:         arith.constant 0.623489797 : f32
// CHECK:         %[[SCALE:.*]] = arith.constant 0.142857149 : f32
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %{{.*}}, %[[SCALE]] fastmath<contract> : f32
// CHECK:         memref.store %[[R]], %[[OUT]][%{{.*}}] : memref<7xf32>
