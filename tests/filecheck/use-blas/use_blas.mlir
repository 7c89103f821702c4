// use-blas marks the products BLAS computes faster than our kernels (passes/use_blas.py):
// vector @ matrix and A.T @ vector from 64² (not matrix @ vector: ours, unless its function
// calls BLAS anyway), matrix @ matrix from 32³ multiply-adds with B at least 16 wide,
// stacks of products from 8x8 @ 8x8 each, a transposed lhs always, dims unknown at compile
// time as large; a matrix times its own transpose is a syrk. Integers,
// small and narrow products are left alone.
// RUN: tracejit-opt %s -p use-blas | filecheck %s
// RUN: tracejit-opt %s -p "use-blas{enabled=false}" | filecheck %s --check-prefix=OFF

builtin.module {
  func.func @products(%a: tensor<128x128xf32>, %x: tensor<128xf32>, %s: tensor<8x8xf64>,
                      %w: tensor<128x10xf32>, %i: tensor<128x128xi32>, %d: tensor<?x?xcomplex<f64>>,
                      %st: tensor<256x8x8xf32>, %st2: tensor<256x4x4xf32>, %v: tensor<?xcomplex<f64>>,
                      %b: tensor<128x128xf32>) {
    %gemv = tj.matmul %a, %x : (tensor<128x128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %vecmat = tj.matmul %x, %a : (tensor<128xf32>, tensor<128x128xf32>) -> tensor<128xf32>
    %gemm = tj.matmul %a, %a : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %small = tj.matmul %s, %s : (tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
    %at = tj.transpose %s, permutation = [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
    %small_t = tj.matmul %at, %s : (tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
    %narrow = tj.matmul %a, %w : (tensor<128x128xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %ints = tj.matmul %i, %i : (tensor<128x128xi32>, tensor<128x128xi32>) -> tensor<128x128xi32>
    %dynamic = tj.matmul %v, %d : (tensor<?xcomplex<f64>>, tensor<?x?xcomplex<f64>>) -> tensor<?xcomplex<f64>>
    %xt = tj.transpose %a, permutation = [1, 0] : tensor<128x128xf32> to tensor<128x128xf32>
    %at_x = tj.matmul %xt, %x : (tensor<128x128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %stack = tj.matmul %st, %st : (tensor<256x8x8xf32>, tensor<256x8x8xf32>) -> tensor<256x8x8xf32>
    %tiny = tj.matmul %st2, %st2 : (tensor<256x4x4xf32>, tensor<256x4x4xf32>) -> tensor<256x4x4xf32>
    %dot = tj.matmul %x, %x : (tensor<128xf32>, tensor<128xf32>) -> tensor<f32>
    %gram = tj.matmul %a, %xt : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %bt = tj.transpose %b, permutation = [1, 0] : tensor<128x128xf32> to tensor<128x128xf32>
    %not_gram = tj.matmul %a, %bt : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %rows = tj.slice %b, start = [1, 0], step = [1, 1] : tensor<128x128xf32> to tensor<127x128xf32>
    %window_x = tj.matmul %rows, %x : (tensor<127x128xf32>, tensor<128xf32>) -> tensor<127xf32>
    %columns = tj.slice %b, start = [0, 0], step = [1, 2] : tensor<128x128xf32> to tensor<128x64xf32>
    %half = tj.slice %x, start = [0], step = [2] : tensor<128xf32> to tensor<64xf32>
    %strided_x = tj.matmul %columns, %half : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128xf32>
    func.return
  }

  func.func @ours(%a: tensor<128x128xf32>, %x: tensor<128xf32>, %s: tensor<8x8xf64>) {
    %gemv = tj.matmul %a, %x : (tensor<128x128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %small = tj.matmul %s, %s : (tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
    func.return
  }
}

// A matrix @ vector is BLAS's in a function that calls BLAS anyway (OpenBLAS's threads,
// spinning after a call, would take the core our pool's worker wants); a strided slice
// still stays ours (BLAS would need a copy).
// CHECK:      %gemv = tj.matmul %a, %x {blas = "gemv"}
// CHECK-NEXT: %vecmat = tj.matmul %x, %a {blas = "gemv"}
// CHECK-NEXT: %gemm = tj.matmul %a, %a {blas = "gemm"}
// CHECK-NEXT: %small = tj.matmul %s, %s :
// CHECK-NEXT: %at = tj.transpose
// CHECK-NEXT: %small_t = tj.matmul %at, %s {blas = "syrk"}
// CHECK-NEXT: %narrow = tj.matmul %a, %w :
// CHECK-NEXT: %ints = tj.matmul %i, %i :
// CHECK-NEXT: %dynamic = tj.matmul %v, %d {blas = "gemv"}
// CHECK-NEXT: %xt = tj.transpose
// CHECK-NEXT: %at_x = tj.matmul %xt, %x {blas = "gemv"}
// CHECK-NEXT: %stack = tj.matmul %st, %st {blas = "gemm"}
// CHECK-NEXT: %tiny = tj.matmul %st2, %st2 :
// CHECK-NEXT: %dot = tj.matmul %x, %x :
// CHECK-NEXT: %gram = tj.matmul %a, %xt {blas = "syrk"}
// CHECK-NEXT: %bt = tj.transpose
// CHECK-NEXT: %not_gram = tj.matmul %a, %bt {blas = "gemm"}
// A slice with unit column step is BLAS's even as matrix @ vector: BLAS reads it in place
// (bufferize/blas_windows.py), our kernel would copy it. Other steps stay ours.
// CHECK-NEXT: %rows = tj.slice
// CHECK-NEXT: %window_x = tj.matmul %rows, %x {blas = "gemv"}
// CHECK-NEXT: %columns = tj.slice
// CHECK-NEXT: %half = tj.slice
// CHECK-NEXT: %strided_x = tj.matmul %columns, %half :
// A function with no other BLAS product keeps its matrix @ vector.
// CHECK-LABEL: func.func @ours
// CHECK-NEXT:  %gemv = tj.matmul %a, %x :
// CHECK-NEXT:  %small = tj.matmul %s, %s :

// OFF-NOT: blas
