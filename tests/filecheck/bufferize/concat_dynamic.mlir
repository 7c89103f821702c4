// bufferize of tj.concat along a dim known at run time only: the offsets are sums of
// memref.dims, the result size their total. An input of run-time size may be empty, so its
// read is guarded by scf.if (the yielded zero is never selected: the position lies in
// another input then); a static input keeps the plain clamped read.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @join(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>) -> tensor<?x3xf32> {
    %c = tj.concat axis = 0, %x, %y : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
    func.return %c : tensor<?x3xf32>
  }
}

// CHECK:      func.func @join(%[[X:.*]]: memref<?x3xf32>, %[[Y:.*]]: memref<2x3xf32>, %[[OUT:.*]]: memref<?x3xf32>) {
// CHECK:        %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x3xf32>
// CHECK-NEXT:   %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:   %[[TOTAL:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK:        linalg.generic {{.*}} outs(%[[OUT]] : memref<?x3xf32>) {
// CHECK:          %[[P:.*]] = linalg.index 0 : index
// the static input y, read at p - n clamped to [0, 2):
// CHECK:          %[[LOCAL:.*]] = arith.subi %[[P]], %[[N]] : index
// CHECK:          arith.minui %[[LOCAL]], %{{.*}} : index
// CHECK:          %[[FROMY:.*]] = memref.load %[[Y]]
// the input x, only read when it is not empty:
// CHECK:          %[[NONEMPTY:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : index
// CHECK-NEXT:     %[[FROMX:.*]] = scf.if %[[NONEMPTY]] -> (f32) {
// CHECK:            memref.load %[[X]]
// CHECK:          } else {
// CHECK-NEXT:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       scf.yield %[[ZERO]] : f32
// CHECK:          %[[INX:.*]] = arith.cmpi ult, %[[P]], %[[N]] : index
// CHECK-NEXT:     %[[V:.*]] = arith.select %[[INX]], %[[FROMX]], %[[FROMY]] : f32
// CHECK-NEXT:     linalg.yield %[[V]] : f32
