// tj.scatter_combine (ufunc.at, np.bincount, np.histogram) prints, parses back and prints
// the same: the combiner names an element-wise binary op, or a unary one (np.negative.at:
// 0-d updates that only give the type); the updates' element type (the one it computes in)
// may differ from the dest's.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @scatter_combine(%a: tensor<6xi32>, %w: tensor<2xf64>, %idx: tensor<2xi64>, %n: tensor<?xi64>, %ones: tensor<?xi64>, %bins: tensor<5xi64>, %half: tensor<f16>) {
    %s = tj.scatter_combine "tj.add" %w into %a[%idx], "IndexError: index out of bounds in np.add.at" : tensor<2xf64> into tensor<6xi32>, tensor<2xi64>
    %b = tj.scatter_combine "tj.maximum" %ones into %bins[%n], "IndexError: index out of bounds" : tensor<?xi64> into tensor<5xi64>, tensor<?xi64>
    %u = tj.scatter_combine "tj.sqrt" %half into %bins[%n], "IndexError: index out of bounds" : tensor<f16> into tensor<5xi64>, tensor<?xi64>
    func.return
  }
}

// CHECK: tj.scatter_combine "tj.add" %{{.*}} into %{{.*}}[%{{.*}}], "IndexError: index out of bounds in np.add.at" : tensor<2xf64> into tensor<6xi32>, tensor<2xi64>
// CHECK: tj.scatter_combine "tj.maximum" %{{.*}} into %{{.*}}[%{{.*}}], "IndexError: index out of bounds" : tensor<?xi64> into tensor<5xi64>, tensor<?xi64>
// CHECK: tj.scatter_combine "tj.sqrt" %{{.*}} into %{{.*}}[%{{.*}}], "IndexError: index out of bounds" : tensor<f16> into tensor<5xi64>, tensor<?xi64>
