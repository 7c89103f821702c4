// bufferize: each shape op is one linalg.generic over its result. Permutations and
// unit-dim reshapes are indexing maps; other positions are computed in the body with
// linalg.index and read with memref.load of the source buffer.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @shapes(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %v: tensor<f32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x3xf32>, tensor<3x3xf32>, tensor<3x5xf32>, tensor<1x2x3xf32>) {
    %r = tj.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
    %t = tj.transpose %x, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
    %s = tj.slice %x, start = [1, 2], step = [1, -1] : tensor<2x3xf32> to tensor<1x3xf32>
    %c = tj.concat axis = 0, %x, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    %p = tj.pad %x, %v, low = [1, 0], high = [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
    %e = tj.reshape %x : tensor<2x3xf32> to tensor<1x2x3xf32>
    func.return %r, %t, %s, %c, %p, %e : tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x3xf32>, tensor<3x3xf32>, tensor<3x5xf32>, tensor<1x2x3xf32>
  }
}

// CHECK:      func.func @shapes(%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<1x3xf32>, %[[V:.*]]: memref<f32>, %[[R:.*]]: memref<3x2xf32>, %[[T:.*]]: memref<3x2xf32>, %[[S:.*]]: memref<1x3xf32>, %[[C:.*]]: memref<3x3xf32>, %[[P:.*]]: memref<3x5xf32>, %[[E:.*]]: memref<1x2x3xf32>) {

// reshape: linearise the result position, delinearise it in the source shape.
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} outs(%[[R]] : memref<3x2xf32>) {
// CHECK:          %[[I:.*]] = linalg.index 0 : index
// CHECK:          %[[IS:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK:          %[[J:.*]] = linalg.index 1 : index
// CHECK:          %[[LIN:.*]] = arith.addi %[[IS]], %[[J]] : index
// CHECK:          %[[ROW:.*]] = arith.divui %[[LIN]], %{{.*}} : index
// CHECK:          %[[COL:.*]] = arith.remui %[[LIN]], %{{.*}} : index
// CHECK:          %[[RV:.*]] = memref.load %[[X]][%[[ROW]], %[[COL]]] : memref<2x3xf32>
// CHECK-NEXT:     linalg.yield %[[RV]] : f32

// transpose: a permuted input map, no index arithmetic.
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} ins(%[[X]] : memref<2x3xf32>) outs(%[[T]] : memref<3x2xf32>)

// slice: start + i * step per dim (step -1 reverses).
// CHECK:        linalg.generic {{.*}} outs(%[[S]] : memref<1x3xf32>)
// CHECK:          arith.constant -1 : index
// CHECK:          arith.muli
// CHECK:          memref.load %[[X]]

// concat of static shapes: each input copied into its place by a loop nest (LLVM
// vectorises the copies; concat_dynamic.mlir has the general form, a select per element).
// CHECK:        scf.for %[[I0:.*]] = {{.*}} {
// CHECK:          scf.for %[[J0:.*]] = {{.*}} {
// CHECK-NEXT:       %[[XV:.*]] = memref.load %[[X]][%[[I0]], %[[J0]]] : memref<2x3xf32>
// CHECK-NEXT:       memref.store %[[XV]], %[[C]][%[[I0]], %[[J0]]] : memref<3x3xf32>
// CHECK:        scf.for %[[I1:.*]] = {{.*}} {
// CHECK:          scf.for %[[J1:.*]] = {{.*}} {
// CHECK-NEXT:       %[[YV:.*]] = memref.load %[[Y]][%[[I1]], %[[J1]]] : memref<1x3xf32>
// CHECK-NEXT:       %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:       %[[ROW:.*]] = arith.addi %[[I1]], %[[TWO]] : index
// CHECK-NEXT:       memref.store %[[YV]], %[[C]][%[[ROW]], %[[J1]]] : memref<3x3xf32>

// pad: the 0-d pad value is an input read by a map with no results.
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}}} ins(%[[V]] : memref<f32>) outs(%[[P]] : memref<3x5xf32>)
// CHECK:          arith.cmpi ult
// CHECK:          arith.andi
// CHECK:          memref.load %[[X]]
// CHECK-NEXT:     arith.select

// a reshape that only adds a unit dim is a projection map.
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}}} ins(%[[X]] : memref<2x3xf32>) outs(%[[E]] : memref<1x2x3xf32>)
// CHECK:        func.return
