// bufferize of tj.linalg: per matrix of the stack, a column-major copy into a scratch
// buffer, LAPACK calls through bodiless functions @tracejit_lapack_<routine> (scalars by
// value, the trailing info returned: ir/lapack_contract.py), and a copy back. "solve" is
// ?gesv, whose info (> 0: singular) is and-ed into the 0-d ok buffer (and then x is NaN,
// as NumPy's where the error is ignored, as np.linalg.cond does); with a number of
// right-hand sides unknown until run time, ?getrf alone when there are none (?gesv would
// return without factoring, and a singular matrix would go unseen);
// "cholesky" is ?potrf("L") with zeros above the diagonal; "slogdet" reads ?getrf's factors.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @solve(%a: tensor<2x3x3xf64>, %b: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>) {
    %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<i1>)
    func.return %x, %ok : tensor<2x3x4xf64>, tensor<i1>
  }

  func.func @solve_columns_unknown(%a: tensor<3x3xf64>, %b: tensor<3x?xf64>) -> (tensor<3x?xf64>, tensor<i1>) {
    %x, %ok = tj.linalg "solve" %a, %b : (tensor<3x3xf64>, tensor<3x?xf64>) -> (tensor<3x?xf64>, tensor<i1>)
    func.return %x, %ok : tensor<3x?xf64>, tensor<i1>
  }

  func.func @cholesky(%a: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<i1>) {
    %l, %ok = tj.linalg "cholesky" %a : (tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<i1>)
    func.return %l, %ok : tensor<?x?xf32>, tensor<i1>
  }

  func.func @slogdet(%a: tensor<5x2x2xcomplex<f64>>) -> (tensor<5xcomplex<f64>>, tensor<5xf64>) {
    %s, %l = tj.linalg "slogdet" %a : (tensor<5x2x2xcomplex<f64>>) -> (tensor<5xcomplex<f64>>, tensor<5xf64>)
    func.return %s, %l : tensor<5xcomplex<f64>>, tensor<5xf64>
  }
}

// CHECK-DAG:  func.func private @tracejit_lapack_dgetrf(i32, i32, memref<?xf64>, i32, memref<?xi32>) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_dgesv(i32, i32, memref<?xf64>, i32, memref<?xi32>, memref<?xf64>, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_spotrf(i8, i32, memref<?xf32>, i32) -> i32
// CHECK-DAG:  func.func private @tracejit_lapack_zgetrf(i32, i32, memref<?xcomplex<f64>>, i32, memref<?xi32>) -> i32

// CHECK:       func.func @solve(%{{.*}}: memref<2x3x3xf64>, %{{.*}}: memref<2x3x4xf64>, %[[X:.*]]: memref<2x3x4xf64>, %[[OK:.*]]: memref<i1>) {
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    memref.store %[[TRUE]], %[[OK]][] : memref<i1>
// CHECK:         %[[AF:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[BF:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK:         %[[PIV:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK:         scf.for %[[P:.*]] = {{.*}} {
// CHECK:           memref.load %{{.*}}[%[[P]], %{{.*}}, %{{.*}}] : memref<2x3x3xf64>
// CHECK:           memref.store %{{.*}}, %[[AF]][%{{.*}}] : memref<?xf64>
// CHECK:           memref.store %{{.*}}, %[[BF]][%{{.*}}] : memref<?xf64>
// CHECK:           %[[INFO:.*]] = func.call @tracejit_lapack_dgesv(%[[N]], %{{.*}}, %[[AF]], %{{.*}}, %[[PIV]], %[[BF]], %{{.*}})
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[GOOD:.*]] = arith.cmpi eq, %[[INFO]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[WAS:.*]] = memref.load %[[OK]][] : memref<i1>
// CHECK-NEXT:      %[[BOTH:.*]] = arith.andi %[[WAS]], %[[GOOD]] : i1
// CHECK-NEXT:      memref.store %[[BOTH]], %[[OK]][] : memref<i1>
// CHECK:           %[[FAILED:.*]] = arith.cmpi ne, %[[INFO]], %{{.*}} : i32
// CHECK-NEXT:      scf.if %[[FAILED]] {
// CHECK-NEXT:        %[[NAN:.*]] = arith.constant 0x7ff8000000000000 : f64
// CHECK:               memref.store %[[NAN]], %[[BF]][%{{.*}}] : memref<?xf64>
// CHECK:           memref.load %[[BF]][%{{.*}}] : memref<?xf64>
// CHECK-NEXT:      memref.store %{{.*}}, %[[X]][%[[P]], %{{.*}}, %{{.*}}] : memref<2x3x4xf64>
// CHECK:         memref.dealloc %[[AF]] : memref<?xf64>

// CHECK-LABEL: func.func @solve_columns_unknown(
// CHECK:         %[[K:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<3x?xf64>
// CHECK:         %[[SOME:.*]] = arith.cmpi ugt, %[[K]], %{{.*}} : index
// CHECK-NEXT:    %[[INFO2:.*]] = scf.if %[[SOME]] -> (i32) {
// CHECK-NEXT:      %[[SOLVED:.*]] = func.call @tracejit_lapack_dgesv(
// CHECK-NEXT:      scf.yield %[[SOLVED]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[FACTORED:.*]] = func.call @tracejit_lapack_dgetrf(
// CHECK-NEXT:      scf.yield %[[FACTORED]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.constant 0 : i32

// CHECK-LABEL: func.func @cholesky(
// CHECK:         %[[L:.*]] = arith.constant 76 : i8
// CHECK:         func.call @tracejit_lapack_spotrf(%[[L]], %{{.*}}, %{{.*}}, %{{.*}}) : (i8, i32, memref<?xf32>, i32) -> i32
// CHECK:         %[[ABOVE:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}} : index
// CHECK:         arith.select %[[ABOVE]], %{{.*}}, %{{.*}} : f32

// CHECK-LABEL: func.func @slogdet(
// CHECK:         func.call @tracejit_lapack_zgetrf(
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (complex<f64>, f64) {
// CHECK:           math.log
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<5xcomplex<f64>>
