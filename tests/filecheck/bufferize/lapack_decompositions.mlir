// bufferize of the tj.linalg decompositions: LAPACK's workspace query (lwork = -1) once
// before the batch loop, the work arrays allocated from the sizes it wrote, then per matrix
// a column-major copy, the call (info and-ed into ok where the routine can fail) and the
// copies out. "eigh" is ?syevd("V", "L"); complex "svd" is ?cgesdd("S") with its real
// workspace; "qr_complete" is ?geqrf, r from the upper triangle, then ?orgqr for the
// m x m q; "lstsq" is ?gelsd on a zero-padded max(m, n)-row b, with the residuals summed
// from its rows n..m.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @eigh(%a: tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<i1>) {
    %w, %v, %ok = tj.linalg "eigh" %a : (tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<i1>)
    func.return %w, %v, %ok : tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<i1>
  }

  func.func @svd(%a: tensor<4x2xcomplex<f32>>) -> (tensor<4x2xcomplex<f32>>, tensor<2xf32>, tensor<2x2xcomplex<f32>>, tensor<i1>) {
    %u, %s, %vh, %ok = tj.linalg "svd" %a : (tensor<4x2xcomplex<f32>>) -> (tensor<4x2xcomplex<f32>>, tensor<2xf32>, tensor<2x2xcomplex<f32>>, tensor<i1>)
    func.return %u, %s, %vh, %ok : tensor<4x2xcomplex<f32>>, tensor<2xf32>, tensor<2x2xcomplex<f32>>, tensor<i1>
  }

  func.func @qr(%a: tensor<4x2xf64>) -> (tensor<4x4xf64>, tensor<4x2xf64>) {
    %q, %r = tj.linalg "qr_complete" %a : (tensor<4x2xf64>) -> (tensor<4x4xf64>, tensor<4x2xf64>)
    func.return %q, %r : tensor<4x4xf64>, tensor<4x2xf64>
  }

  func.func @lstsq(%a: tensor<4x2xf64>, %b: tensor<4x3xf64>, %rcond: tensor<f64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>) {
    %x, %res, %rank, %s, %ok = tj.linalg "lstsq" %a, %b, %rcond : (tensor<4x2xf64>, tensor<4x3xf64>, tensor<f64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>)
    func.return %x, %res, %rank, %s, %ok : tensor<2x3xf64>, tensor<3xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>
  }
}

// CHECK-DAG:  func.func private @tracejit_lapack_dsyevd(i8, i8, i32, memref<?xf64>, i32, memref<?xf64>, memref<?xf64>, i32, memref<?xi32>, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_cgesdd(i8, i32, i32, memref<?xcomplex<f32>>, i32, memref<?xf32>, memref<?xcomplex<f32>>, i32, memref<?xcomplex<f32>>, i32, memref<?xcomplex<f32>>, i32, memref<?xf32>, memref<?xi32>) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_dgeqrf(i32, i32, memref<?xf64>, i32, memref<?xf64>, memref<?xf64>, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_dorgqr(i32, i32, i32, memref<?xf64>, i32, memref<?xf64>, memref<?xf64>, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_dgelsd(i32, i32, i32, memref<?xf64>, i32, memref<?xf64>, i32, memref<?xf64>, f64, memref<i32>, memref<?xf64>, i32, memref<?xi32>) -> i32

// CHECK:       func.func @eigh(%{{.*}}: memref<2x3x3xf64>, %[[W:.*]]: memref<2x3xf64>, %[[V:.*]]: memref<2x3x3xf64>, %[[OK:.*]]: memref<i1>) {
// CHECK:         %[[AF:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[VALUES:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[JOBZ:.*]] = arith.constant 86 : i8
// CHECK-NEXT:    %[[UPLO:.*]] = arith.constant 76 : i8
// CHECK:         %[[SLOT:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[ISLOT:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK-NEXT:    %[[QUERY:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    func.call @tracejit_lapack_dsyevd(%[[JOBZ]], %[[UPLO]], %{{.*}}, %[[AF]], %{{.*}}, %[[VALUES]], %[[SLOT]], %[[QUERY]], %[[ISLOT]], %[[QUERY]])
// CHECK:         %[[OPTIMAL:.*]] = memref.load %[[SLOT]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:    arith.fptosi %[[OPTIMAL]] : f64 to i64
// CHECK:         %[[WORK:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT:    %[[LWORK:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[IWORK:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK-NEXT:    %[[LIWORK:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         scf.for %[[P:.*]] = {{.*}} {
// CHECK:           memref.store %{{.*}}, %[[AF]][%{{.*}}] : memref<?xf64>
// CHECK:           %[[INFO:.*]] = func.call @tracejit_lapack_dsyevd(%[[JOBZ]], %[[UPLO]], %{{.*}}, %[[AF]], %{{.*}}, %[[VALUES]], %[[WORK]], %[[LWORK]], %[[IWORK]], %[[LIWORK]])
// CHECK:           arith.cmpi eq, %[[INFO]], %{{.*}} : i32
// CHECK:           memref.store %{{.*}}, %[[OK]][] : memref<i1>
// CHECK:           memref.load %[[VALUES]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:      memref.store %{{.*}}, %[[W]][%[[P]], %{{.*}}] : memref<2x3xf64>
// CHECK:           memref.load %[[AF]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:      memref.store %{{.*}}, %[[V]][%[[P]], %{{.*}}, %{{.*}}] : memref<2x3x3xf64>

// CHECK-LABEL: func.func @svd(
// CHECK:         %[[RWORK:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         %[[JOBZ:.*]] = arith.constant 83 : i8
// CHECK:         func.call @tracejit_lapack_cgesdd(%[[JOBZ]], {{.*}}, %{{.*}}, %{{.*}}, %[[RWORK]], %{{.*}})
// CHECK:         arith.fptosi %{{.*}} : f32 to i64
// CHECK:         %[[INFO:.*]] = func.call @tracejit_lapack_cgesdd(%[[JOBZ]], {{.*}}, %[[RWORK]], %{{.*}})
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.cmpi eq, %[[INFO]], %{{.*}} : i32

// CHECK:       func.func @qr(%{{.*}}: memref<4x2xf64>, %[[Q:.*]]: memref<4x4xf64>, %[[R:.*]]: memref<4x2xf64>) {
// CHECK:         func.call @tracejit_lapack_dgeqrf(
// CHECK:         func.call @tracejit_lapack_dorgqr(
// CHECK:         %[[LARGEST:.*]] = arith.maxui %{{.*}}, %{{.*}} : index
// CHECK:         %[[WORK:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         func.call @tracejit_lapack_dgeqrf(%{{.*}}, %{{.*}}, %[[AF:.*]], %{{.*}}, %[[TAU:.*]], %[[WORK]], %{{.*}})
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:         memref.store %{{.*}}, %[[R]][%{{.*}}, %{{.*}}] : memref<4x2xf64>
// CHECK:         func.call @tracejit_lapack_dorgqr(%{{.*}}, %{{.*}}, %{{.*}}, %[[AF]], %{{.*}}, %[[TAU]], %[[WORK]], %{{.*}})
// CHECK:         memref.store %{{.*}}, %[[Q]][%{{.*}}, %{{.*}}] : memref<4x4xf64>

// CHECK:       func.func @lstsq(%{{.*}}: memref<4x2xf64>, %{{.*}}: memref<4x3xf64>, %[[RCOND:.*]]: memref<f64>, %[[X:.*]]: memref<2x3xf64>, %[[RES:.*]]: memref<3xf64>, %[[RANK:.*]]: memref<i32>, %{{.*}}: memref<2xf64>, %{{.*}}: memref<i1>) {
// CHECK:         %[[THRESHOLD:.*]] = memref.load %[[RCOND]][] : memref<f64>
// CHECK:         func.call @tracejit_lapack_dgelsd({{.*}}, %[[THRESHOLD]], %[[RANK]], {{.*}})
// CHECK:         arith.constant 0.000000e+00 : f64
// CHECK:         %[[INFO:.*]] = func.call @tracejit_lapack_dgelsd({{.*}}, %[[THRESHOLD]], %[[RANK]], {{.*}})
// CHECK:         memref.store %{{.*}}, %[[X]][%{{.*}}, %{{.*}}] : memref<2x3xf64>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         memref.store %{{.*}}, %[[RES]][%{{.*}}] : memref<3xf64>
