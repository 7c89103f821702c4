// bufferize of tj.nonzero (np.argwhere): a first scf.for nest counts the non-zero
// elements, the result gets that many rows, a second nest stores each non-zero element's
// coordinates in the next row (scf.if). Float elements are tested with `une` (NaN counts,
// -0.0 does not). x[mask] then gathers at the flat indices: tj.gather's result takes its
// `?` dim from the index buffer.
// RUN: tracejit-opt %s -p bufferize | filecheck %s
// RUN: tracejit-opt %s -p bufferize,lower-to-loops,simplify-loops,scf-to-cf,lower-asserts | filecheck %s --check-prefix=CF

builtin.module {
  func.func @argwhere(%x: tensor<4x5xf32>) -> tensor<3xi64> {
    %c = tj.nonzero %x : tensor<4x5xf32> -> tensor<?x2xi64>
    %d = tj.export %c : tensor<?x2xi64> -> tensor<3xi64>
    func.return %d : tensor<3xi64>
  }
  func.func @select(%x: tensor<6xui8>, %m: tensor<6xi1>) -> tensor<2xi64> {
    %c = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %zero = tj.constant dense<0> : tensor<i64>
    %flat = tj.gather %c[%zero], axis = 1, "IndexError: column (f.py:1)" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %s = tj.gather %x[%flat], axis = 0, "IndexError: mask (f.py:2)" : (tensor<6xui8>, tensor<?xi64>) -> tensor<?xui8>
    %d = tj.export %s : tensor<?xui8> -> tensor<2xi64>
    func.return %d : tensor<2xi64>
  }
}

// CHECK:      func.func @argwhere(%[[X:.*]]: memref<4x5xf32>, %[[D:.*]]: memref<3xi64>) {
// The count: nested loops carrying the count, adding 1 per non-zero element.
// CHECK:        %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK:        %[[N:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[ZERO]]) -> (index) {
// CHECK:          %[[M:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (index) {
// CHECK-NEXT:       %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<4x5xf32>
// CHECK-NEXT:       %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       %[[NZ:.*]] = arith.cmpf une, %[[V]], %[[Z]] : f32
// CHECK-NEXT:       %[[ADD:.*]] = arith.select %[[NZ]], %[[ONE]], %[[ZERO]] : index
// CHECK-NEXT:       %[[B2:.*]] = arith.addi %[[B]], %[[ADD]] : index
// CHECK-NEXT:       scf.yield %[[B2]] : index
// CHECK:          scf.yield %[[M]] : index
// The result has as many rows as were counted.
// CHECK:        %[[OUT:.*]] = memref.alloc(%[[N]]) : memref<?x2xi64>
// The fill: the same nest, storing (i, j) in row `row` and moving to the next row.
// CHECK:        scf.for %[[I2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (index) {
// CHECK:          scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}) -> (index) {
// CHECK:            %[[NZ2:.*]] = arith.cmpf une
// CHECK-NEXT:       %{{.*}} = scf.if %[[NZ2]] -> (index) {
// CHECK-NEXT:         %[[CI:.*]] = arith.index_cast %[[I2]] : index to i64
// CHECK-NEXT:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:         memref.store %[[CI]], %[[OUT]][%[[ROW]], %[[C0]]] : memref<?x2xi64>
// CHECK-NEXT:         %[[CJ:.*]] = arith.index_cast %[[J2]] : index to i64
// CHECK-NEXT:         %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:         memref.store %[[CJ]], %[[OUT]][%[[ROW]], %[[C1]]] : memref<?x2xi64>
// CHECK-NEXT:         %[[STEP:.*]] = arith.constant 1 : index
// CHECK-NEXT:         %[[NEXT:.*]] = arith.addi %[[ROW]], %[[STEP]] : index
// CHECK-NEXT:         scf.yield %[[NEXT]] : index
// CHECK-NEXT:       } else {
// CHECK-NEXT:         scf.yield %[[ROW]] : index
// CHECK-NEXT:       }
// The caller receives the buffer (moved, not copied, and not freed here).
// CHECK:        "memref.extract_aligned_pointer_as_index"(%[[OUT]])
// CHECK-NOT:    memref.dealloc %[[OUT]]
// CHECK:        func.return

// A bool mask is its own truth value: no compare.
// CHECK:      func.func @select(%[[SX:.*]]: memref<6xi8>, %[[SM:.*]]: memref<6xi1>, %{{.*}}: memref<2xi64>) {
// CHECK:        %[[MV:.*]] = memref.load %[[SM]][%{{.*}}] : memref<6xi1>
// CHECK-NEXT:   %{{.*}} = arith.select %[[MV]], %{{.*}}, %{{.*}} : index
// CHECK:        %[[COORDS:.*]] = memref.alloc(%{{.*}}) : memref<?x1xi64>
// The column and the selection are sized by the buffers they read their indices from.
// CHECK:        %[[ROWS:.*]] = memref.dim %[[COORDS]], %{{.*}} : memref<?x1xi64>
// CHECK-NEXT:   %[[FLAT:.*]] = memref.alloc(%[[ROWS]]) : memref<?xi64>
// CHECK:        linalg.generic {{.*}} outs(%[[FLAT]] : memref<?xi64>)
// CHECK:        %[[COUNT:.*]] = memref.dim %[[FLAT]], %{{.*}} : memref<?xi64>
// CHECK-NEXT:   %[[SEL:.*]] = memref.alloc(%[[COUNT]]) : memref<?xi8>
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], {{.*}}} ins(%[[FLAT]] : memref<?xi64>) outs(%[[SEL]] : memref<?xi8>) {
// CHECK:          cf.assert %{{.*}}, "IndexError: mask (f.py:2)"
// CHECK:          memref.load %[[SX]][%{{.*}}] : memref<6xi8>

// At the cf level the loops are branches; the fill's stores sit in the scf.if's block.
// CF:      func.func @argwhere
// CF-NOT:  scf.
// CF:      memref.alloc
// CF:      cf.cond_br
// CF:      memref.store %{{.*}} : memref<?x2xi64>
