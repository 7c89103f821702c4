// bufferize reads a 2-D slice operand of a BLAS-marked product in place
// (passes/bufferize/blas_windows.py): the call takes the slice's array, its first element
// (row0 * columns + column0) and the array's row pitch (row step * columns) as leading dim;
// no copy of the slice. Our kernel, behind the scf.if of the no-BLAS path, is a loop nest
// that reads the window where it lies (no allocation: a loop's body may hold the product).
// A slice with another use is copied as before.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @window(%a: tensor<260x240xf64>, %x: tensor<260xf64>, %ti: tensor<i64>) -> tensor<?xf64> {
    %iv = tensor.extract %ti[] : tensor<i64>
    %i = arith.index_cast %iv : i64 to index
    %m = arith.constant 240 : index
    %n = arith.subi %m, %i : index
    %w = tj.slice %a, start = [0, -9223372036854775808], step = [1, 1] starts(%i) sizes(%n) : tensor<260x240xf64> to tensor<260x?xf64>
    %y = tj.matmul %x, %w {blas = "gemv"} : (tensor<260xf64>, tensor<260x?xf64>) -> tensor<?xf64>
    func.return %y : tensor<?xf64>
  }

  func.func @stepped_rows(%a: tensor<100x90xf32>, %b: tensor<80x64xf32>) -> tensor<40x64xf32> {
    %w = tj.slice %a, start = [10, 5], step = [2, 1] : tensor<100x90xf32> to tensor<40x80xf32>
    %c = tj.matmul %w, %b {blas = "gemm"} : (tensor<40x80xf32>, tensor<80x64xf32>) -> tensor<40x64xf32>
    func.return %c : tensor<40x64xf32>
  }

  func.func @also_added(%a: tensor<100x90xf32>, %b: tensor<80x64xf32>) -> (tensor<40x64xf32>, tensor<40x80xf32>) {
    %w = tj.slice %a, start = [10, 5], step = [2, 1] : tensor<100x90xf32> to tensor<40x80xf32>
    %c = tj.matmul %w, %b {blas = "gemm"} : (tensor<40x80xf32>, tensor<80x64xf32>) -> tensor<40x64xf32>
    %d = tj.add %w, %w : tensor<40x80xf32>
    func.return %c, %d : tensor<40x64xf32>, tensor<40x80xf32>
  }
}

// data[:, i:240] @ ... as PolyBench's covariance writes it: dgemv on %A at element i, lead 240.
// CHECK:       func.func @window(%[[A:.*]]: memref<260x240xf64>, %[[X:.*]]: memref<260xf64>, %{{.*}}: memref<i64>, %[[Y:.*]]: memref<?xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         %n = arith.subi
// CHECK:         %[[COLUMNS:.*]] = arith.constant 240 : index
// CHECK:         %[[ROW0:.*]] = arith.muli %{{.*}}, %[[COLUMNS]] : index
// CHECK-NEXT:    %[[FIRST:.*]] = arith.addi %[[ROW0]], %i : index
// CHECK-NEXT:    %[[PITCH:.*]] = arith.muli %{{.*}}, %[[COLUMNS]] : index
// CHECK:         %[[LEAD:.*]] = arith.maxui %[[PITCH]], %{{.*}} : index
// CHECK-NEXT:    %[[LEAD32:.*]] = arith.index_cast %[[LEAD]] : index to i32
// CHECK:         func.call @tracejit_lapack_dgemv(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %[[FIRST]], %[[LEAD32]], %[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %[[Y]], %{{.*}}, %{{.*}})
// CHECK:         scf.if
// CHECK-NOT:       memref.alloc
// CHECK:           scf.for %{{.*}} = %{{.*}} to %n step
// CHECK-NEXT:        %[[TOTAL:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:          %[[XK:.*]] = memref.load %[[X]][%[[K]]] : memref<260xf64>
// CHECK:               %[[AK:.*]] = memref.load %[[A]][%{{.*}}, %{{.*}}] : memref<260x240xf64>
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[XK]], %[[AK]] : f64
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addf %[[SUM]], %[[P]] fastmath<reassoc> : f64
// CHECK-NEXT:          scf.yield %[[NEXT]] : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        memref.store %[[TOTAL]], %[[Y]][%{{.*}}] : memref<?xf64>
// CHECK:         func.return

// a[10::2, 5:85] @ b: sgemm reads %A from element 10 * 90 + 5, lead 2 * 90.
// CHECK:       func.func @stepped_rows(%[[A:.*]]: memref<100x90xf32>, %[[B:.*]]: memref<80x64xf32>, %[[C:.*]]: memref<40x64xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         %[[ROW0:.*]] = arith.constant 10 : index
// CHECK-NEXT:    %[[COLUMN0:.*]] = arith.constant 5 : index
// CHECK:         %[[COLUMNS:.*]] = arith.constant 90 : index
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SKIP:.*]] = arith.muli %[[ROW0]], %[[COLUMNS]] : index
// CHECK-NEXT:    %[[FIRST:.*]] = arith.addi %[[SKIP]], %[[COLUMN0]] : index
// CHECK-NEXT:    %[[PITCH:.*]] = arith.muli %[[STEP]], %[[COLUMNS]] : index
// CHECK:         %[[LEAD:.*]] = arith.maxui %[[PITCH]], %{{.*}} : index
// CHECK-NEXT:    %[[LEAD32:.*]] = arith.index_cast %[[LEAD]] : index to i32
// CHECK:         func.call @tracejit_lapack_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %[[A]], %[[FIRST]], %[[LEAD32]], %{{.*}}, %[[C]], %{{.*}}, %{{.*}})

// The slice is also added: it is copied into its own buffer, which the call reads.
// CHECK:       func.func @also_added(%[[A:.*]]: memref<100x90xf32>, %{{.*}}: memref<80x64xf32>, %{{.*}}: memref<40x64xf32>, %{{.*}}: memref<40x80xf32>) {
// CHECK-NEXT:    %[[W:.*]] = memref.alloc() : memref<40x80xf32>
// CHECK:         memref.load %[[A]]
// CHECK:         func.call @tracejit_lapack_sgemm_1(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[W]], %{{.*}}, %{{.*}},
