// A scan is an scf.for along its axis carrying the last slice: NumPy's order, no
// reassociation (float results bit-identical to np.cumsum).
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %s = tj.cumulative "sum" %x, axis = 1 : tensor<3x4xf32>
    func.return %s : tensor<3x4xf32>
  }
}

// CHECK:      %[[FIRST:.*]] = tensor.extract_slice %{{.*}}[0, 0] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x1xf32>
// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ACC:.*]] = %[[FIRST]]) -> (tensor<3x4xf32>, tensor<3x1xf32>) {
// CHECK:        tensor.extract_slice %{{.*}}[0, %[[K]]] [3, 1] [1, 1]
// CHECK:          arith.addf
// CHECK-NOT:      fastmath
// CHECK:        tensor.insert_slice
// CHECK:        scf.yield
