// RUN: tracejit-opt %s -p 'tile-matmul{target=avx2}' | filecheck %s

// Matrix @ vector with the matrix read along its rows (m @ v; v @ m.T reads m the same
// way, with the inputs the other way round): dot products of 8 rows at a time, each x[k]
// loaded once for the 8 rows, then the remaining M % 8 rows one at a time.
func.func @matvec(%a: memref<?x?xf32>, %v: memref<?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : memref<?x?xf32>, memref<?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @matvec
// CHECK-SAME:    (%[[A:.*]]: memref<?x?xf32>, %[[V:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[K:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[REM:.*]] = arith.remui %[[M]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[FULL:.*]] = arith.subi %[[M]], %[[REM]] : index
// CHECK-NEXT:    scf.for %[[I0:.*]] = %{{.*}} to %[[FULL]] step %[[EIGHT]] {
// CHECK:           %[[C0:.*]] = memref.load %[[OUT]][%[[I0]]]
// CHECK-COUNT-6:   memref.load %[[OUT]]
// CHECK-NEXT:      %[[C7:.*]] = memref.load %[[OUT]]
// CHECK:           scf.for %[[KK:.*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[C0]], {{.*}}, %{{.*}} = %[[C7]]) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[V]][%[[KK]]] : memref<?xf32>
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[A]][%[[I0]], %[[KK]]] : memref<?x?xf32>
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[E]], %[[X]] : f32
// CHECK-NEXT:        %{{.*}} = arith.addf %[[ACC]], %[[P]] fastmath<reassoc> : f32
// CHECK-COUNT-7:     arith.mulf
// CHECK:             scf.yield
// CHECK:           memref.store
// CHECK-COUNT-7:   memref.store
// CHECK-NEXT:    } {tj.parallel}
// CHECK:         scf.for %[[I:.*]] = %[[FULL]] to %[[M]] step %{{.*}} {
// CHECK:           scf.for %{{.*}} iter_args(%{{.*}}) -> (f32) {
// CHECK:         func.return

// The vector first (v @ m.T after bufferize): the product keeps its operand order.
func.func @vector_first(%v: memref<64xf64>, %m: memref<80x64xf64>, %out: memref<80xf64>) {
  linalg.generic {indexing_maps = [affine_map<(j, k) -> (k)>,
                                   affine_map<(j, k) -> (j, k)>,
                                   affine_map<(j, k) -> (j)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%v, %m : memref<64xf64>, memref<80x64xf64>) outs(%out : memref<80xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  func.return
}

// CHECK-LABEL: func.func @vector_first
// CHECK-SAME:    (%[[V:.*]]: memref<64xf64>, %[[M:.*]]: memref<80x64xf64>, %{{.*}}: memref<80xf64>)
// CHECK:           scf.for %[[KK:[a-z0-9_]+]] = {{.*}} -> (f64, f64, f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[V]][%[[KK]]] : memref<64xf64>
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[M]][%{{.*}}, %[[KK]]] : memref<80x64xf64>
// CHECK-NEXT:        %{{.*}} = arith.mulf %[[X]], %[[E]] : f64
