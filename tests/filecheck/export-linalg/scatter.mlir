// tj.scatter writes its updates in order (the last of repeated indices wins): an scf.for
// inserting one element per step, the index wrapped as NumPy's (negatives from the end).
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%v: tensor<3xf32>, %d: tensor<5xf32>, %i: tensor<3xi64>) -> tensor<5xf32> {
    %r = tj.scatter %v into %d[%i], "IndexError: index out of bounds" : tensor<3xf32> into tensor<5xf32>, tensor<3xi64>
    func.return %r : tensor<5xf32>
  }
}

// CHECK:      scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PART:.*]] = %{{.*}}) -> (tensor<5xf32>) {
// CHECK:        %[[RAW:.*]] = tensor.extract %{{.*}}[%[[K]]] : tensor<3xi64>
// CHECK:        arith.cmpi slt, %[[RAW]]
// CHECK:        %[[AT:.*]] = arith.index_cast
// CHECK:        %[[V:.*]] = tensor.extract %{{.*}}[%[[K]]] : tensor<3xf32>
// CHECK:        %[[W:.*]] = tensor.insert %[[V]] into %[[PART]][%[[AT]]] : tensor<5xf32>
// CHECK:        scf.yield %[[W]] : tensor<5xf32>
