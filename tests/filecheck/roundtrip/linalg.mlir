// tj.linalg (every kind) prints, parses back and prints the same text: batched, dynamic and
// 0x0 stacks, real and complex elements.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @kinds(%a: tensor<2x3x3xf64>, %b: tensor<2x3x4xf64>, %c: tensor<?x?xcomplex<f32>>, %e: tensor<0x0xf32>) {
    %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>)
    %i, %ok1 = tj.linalg "inv" %e : (tensor<0x0xf32>) -> (tensor<0x0xf32>, tensor<i1>)
    %l, %ok2 = tj.linalg "cholesky" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?x?xcomplex<f32>>, tensor<i1>)
    %s, %d = tj.linalg "slogdet" %a : (tensor<2x3x3xf64>) -> (tensor<2xf64>, tensor<2xf64>)
    %cs, %cd = tj.linalg "slogdet" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>)
    %w, %v, %ok3 = tj.linalg "eigh" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?xf32>, tensor<?x?xcomplex<f32>>, tensor<i1>)
    %w2, %ok4 = tj.linalg "eigvalsh" %a : (tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<i1>)
    func.return
  }

  func.func @rectangular(%a: tensor<2x5x3xf64>, %c: tensor<3x?xcomplex<f64>>, %e: tensor<0x4xf32>, %b: tensor<5x2xf64>, %rc: tensor<f64>) {
    %u, %s, %vh, %ok = tj.linalg "svd" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<i1>)
    %u1, %s1, %vh1, %ok1 = tj.linalg "svd_complete" %e : (tensor<0x4xf32>) -> (tensor<0x0xf32>, tensor<0xf32>, tensor<4x4xf32>, tensor<i1>)
    %s2, %ok2 = tj.linalg "svdvals" %c : (tensor<3x?xcomplex<f64>>) -> (tensor<?xf64>, tensor<i1>)
    %q, %r = tj.linalg "qr" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3x3xf64>)
    %q1, %r1 = tj.linalg "qr_complete" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x5xf64>, tensor<2x5x3xf64>)
    %r2 = tj.linalg "qr_r" %e : (tensor<0x4xf32>) -> tensor<0x4xf32>
    %x, %res, %rank, %sv, %ok3 = tj.linalg "lstsq" %b, %b, %rc : (tensor<5x2xf64>, tensor<5x2xf64>, tensor<f64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>)
    func.return
  }
}

// CHECK:      %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>)
// CHECK-NEXT: %i, %ok1 = tj.linalg "inv" %e : (tensor<0x0xf32>) -> (tensor<0x0xf32>, tensor<i1>)
// CHECK-NEXT: %l, %ok2 = tj.linalg "cholesky" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?x?xcomplex<f32>>, tensor<i1>)
// CHECK-NEXT: %s, %d = tj.linalg "slogdet" %a : (tensor<2x3x3xf64>) -> (tensor<2xf64>, tensor<2xf64>)
// CHECK-NEXT: %cs, %cd = tj.linalg "slogdet" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<complex<f32>>, tensor<f32>)
// CHECK-NEXT: %w, %v, %ok3 = tj.linalg "eigh" %c : (tensor<?x?xcomplex<f32>>) -> (tensor<?xf32>, tensor<?x?xcomplex<f32>>, tensor<i1>)
// CHECK-NEXT: %w2, %ok4 = tj.linalg "eigvalsh" %a : (tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<i1>)
// CHECK:      %u, %s, %vh, %ok = tj.linalg "svd" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<i1>)
// CHECK-NEXT: %u1, %s1, %vh1, %ok1 = tj.linalg "svd_complete" %e : (tensor<0x4xf32>) -> (tensor<0x0xf32>, tensor<0xf32>, tensor<4x4xf32>, tensor<i1>)
// CHECK-NEXT: %s2, %ok2 = tj.linalg "svdvals" %c : (tensor<3x?xcomplex<f64>>) -> (tensor<?xf64>, tensor<i1>)
// CHECK-NEXT: %q, %r = tj.linalg "qr" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3x3xf64>)
// CHECK-NEXT: %q1, %r1 = tj.linalg "qr_complete" %a : (tensor<2x5x3xf64>) -> (tensor<2x5x5xf64>, tensor<2x5x3xf64>)
// CHECK-NEXT: %r2 = tj.linalg "qr_r" %e : (tensor<0x4xf32>) -> tensor<0x4xf32>
// CHECK-NEXT: %x, %res, %rank, %sv, %ok3 = tj.linalg "lstsq" %b, %b, %rc : (tensor<5x2xf64>, tensor<5x2xf64>, tensor<f64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>)
