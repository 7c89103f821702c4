// bufferize of a tj.matmul that use-blas marked (passes/bufferize/blas.py): ?gemm / ?gemv / ?syrk
// calls on the row-major buffers as column-major transposes (C^T = B^T A^T: B first), a
// 2-D transpose read in place with trans "T" (84) instead of "N" (78), each memref
// followed by the position of its matrix's first element; our own zero fill and generic
// run behind an scf.if when the call reports BLAS_MISSING or k is 0.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @gemm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
    %c = tj.matmul %a, %b {blas = "gemm"} : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
    func.return %c : tensor<64x48xf32>
  }

  func.func @transposed_gemv(%a: tensor<?x?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
    %at = tj.transpose %a, permutation = [1, 0] : tensor<?x?xf64> to tensor<?x?xf64>
    %x = tj.matmul %at, %y {blas = "gemv"} : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
    func.return %x : tensor<?xf64>
  }

  func.func @gram(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
    %at = tj.transpose %a, permutation = [1, 0] : tensor<?x?xf64> to tensor<?x?xf64>
    %c = tj.matmul %at, %a {blas = "syrk"} : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
    func.return %c : tensor<?x?xf64>
  }

  func.func @gram_rows(%a: tensor<40x30xf32>) -> tensor<40x40xf32> {
    %at = tj.transpose %a, permutation = [1, 0] : tensor<40x30xf32> to tensor<30x40xf32>
    %c = tj.matmul %a, %at {blas = "syrk"} : (tensor<40x30xf32>, tensor<30x40xf32>) -> tensor<40x40xf32>
    func.return %c : tensor<40x40xf32>
  }

  func.func @stack(%a: tensor<4x8x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<4x8x8xf32> {
    %c = tj.matmul %a, %b {blas = "gemm"} : (tensor<4x8x8xf32>, tensor<1x8x8xf32>) -> tensor<4x8x8xf32>
    func.return %c : tensor<4x8x8xf32>
  }

  // A stack of real matrices of few rows times one matrix: a call per matrix (as NumPy's)
  func.func @short_matrices(%a: tensor<3x20x16xf64>, %b: tensor<16x8xf64>) -> tensor<3x20x8xf64> {
    %c = tj.matmul %a, %b {blas = "gemm"} : (tensor<3x20x16xf64>, tensor<16x8xf64>) -> tensor<3x20x8xf64>
    func.return %c : tensor<3x20x8xf64>
  }

  // ... of many rows: one tall call, m = 2 x 300 rows
  func.func @tall_matrices(%a: tensor<2x300x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x300x8xf32> {
    %c = tj.matmul %a, %b {blas = "gemm"} : (tensor<2x300x16xf32>, tensor<16x8xf32>) -> tensor<2x300x8xf32>
    func.return %c : tensor<2x300x8xf32>
  }
}

// A second signature of a routine is a second declaration (ir/lapack_contract.py).
// CHECK-DAG:  func.func private @tracejit_lapack_sgemm_1(i8, i8, i32, i32, i32, f32, memref<1x8x8xf32>, index, i32, memref<4x8x8xf32>, index, i32, f32, memref<4x8x8xf32>, index, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_sgemm(i8, i8, i32, i32, i32, f32, memref<32x48xf32>, index, i32, memref<64x32xf32>, index, i32, f32, memref<64x48xf32>, index, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_dgemv(i8, i32, i32, f64, memref<?x?xf64>, index, i32, memref<?xf64>, index, i32, f64, memref<?xf64>, index, i32) -> i32

// CHECK:       func.func @gemm(%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x48xf32>, %[[C:.*]]: memref<64x48xf32>) {
// CHECK:         %[[TB:.*]] = arith.constant 78 : i8
// CHECK-NEXT:    %[[TA:.*]] = arith.constant 78 : i8
// CHECK:         %[[MISSING:.*]] = func.call @tracejit_lapack_sgemm(%[[TB]], %[[TA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FAILED:.*]] = arith.cmpi ne, %[[MISSING]], %[[ZERO]] : i32
// CHECK:         %[[OWN:.*]] = arith.ori %[[FAILED]], %{{.*}} : i1
// CHECK-NEXT:    scf.if %[[OWN]] {
// CHECK-NEXT:      linalg.generic
// CHECK:           linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<64x32xf32>, memref<32x48xf32>) outs(%[[C]] : memref<64x48xf32>)
// CHECK:         func.return

// A.T @ y reads A in place: gemv("N") on A's buffer; no copy of the transpose.
// CHECK:       func.func @transposed_gemv(%[[A:.*]]: memref<?x?xf64>, %[[Y:.*]]: memref<?xf64>, %[[X:.*]]: memref<?xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         %[[T:.*]] = arith.constant 78 : i8
// CHECK:         func.call @tracejit_lapack_dgemv(%[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %[[Y]], %{{.*}}, %{{.*}}, %{{.*}}, %[[X]], %{{.*}}, %{{.*}})
// CHECK:         scf.if
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]

// A.T @ A is one ?syrk on A's buffer (uplo "U" (85), trans "N": the buffer is BLAS's A^T);
// then a loop nest copies the lower triangle (BLAS's upper, column-major) into the upper.
// CHECK:       func.func @gram(%[[A:.*]]: memref<?x?xf64>, %[[C:.*]]: memref<?x?xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         %[[UPLO:.*]] = arith.constant 85 : i8
// CHECK-NEXT:    %[[N:.*]] = arith.constant 78 : i8
// CHECK:         func.call @tracejit_lapack_dsyrk(%[[UPLO]], %[[N]], %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %{{.*}})
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %[[M:.*]] step %[[ONE:.*]] {
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[R]], %[[ONE]] : index
// CHECK-NEXT:      scf.for %[[COL:.*]] = %[[NEXT]] to %[[M]] step %[[ONE]] {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[C]][%[[COL]], %[[R]]]
// CHECK-NEXT:        memref.store %[[V]], %[[C]][%[[R]], %[[COL]]]
// CHECK:         scf.if
// CHECK:           linalg.generic

// A @ A.T: the same call with trans "T" (84), leading dim A's row length.
// CHECK:       func.func @gram_rows(%[[A:.*]]: memref<40x30xf32>, %[[C:.*]]: memref<40x40xf32>) {
// CHECK:         %[[T:.*]] = arith.constant 84 : i8
// CHECK:         func.call @tracejit_lapack_ssyrk(%{{.*}}, %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %[[A]],

// A stack of products is a loop of calls, each at its matrices' first elements; B's
// broadcast batch dim steps by 0, A's and C's by 64.
// CHECK:       func.func @stack(
// CHECK:         %[[ALL:.*]] = scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) {
// CHECK:           func.call @tracejit_lapack_sgemm_1(
// CHECK:           scf.yield
// CHECK:         arith.cmpi ne, %[[ALL]]

// CHECK:       func.func @short_matrices(%[[A:.*]]: memref<3x20x16xf64>, %[[B:.*]]: memref<16x8xf64>, %[[C:.*]]: memref<3x20x8xf64>) {
// CHECK:         %[[ROWS:.*]] = arith.constant 20 : index
// CHECK:         %[[M:.*]] = arith.muli %{{.*}}, %[[ROWS]] : index
// CHECK:         %[[STACK:.*]] = arith.constant 3 : index
// CHECK:         %[[ALL:.*]] = scf.for %[[P:.*]] = %{{.*}} to %[[STACK]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) {
// CHECK:           %[[AT:.*]] = arith.muli %[[P]], %{{.*}} : index
// CHECK:           %[[M32:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK:           func.call @tracejit_lapack_dgemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M32]], %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %{{.*}})
// CHECK:           scf.yield
// CHECK:         arith.cmpi ne, %[[ALL]]

// CHECK:       func.func @tall_matrices(
// CHECK-NOT:     scf.for
// CHECK:         %[[M:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:         func.call @tracejit_lapack_sgemm{{(_[0-9]+)?}}(
// CHECK:         scf.if
