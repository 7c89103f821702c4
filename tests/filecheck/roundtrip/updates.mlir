// The value-semantics updates (ir/update.py) print, parse back and print the same.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @updates(%a: tensor<5x6xf32>, %v: tensor<1x3xf32>, %t: tensor<i64>, %flat: tensor<6xf32>, %idx: tensor<2xi64>, %w: tensor<2xf32>, %n: index) {
    %i = tj.to_index %t, size = 5, "IndexError: index out of bounds for axis 0 with size 5" : tensor<i64>
    %k = tj.to_index %t, size = -1 dim(%n), "IndexError: index out of bounds" : tensor<i64>
    %r = tj.insert_slice %v into %a, start = [-9223372036854775808, 5], step = [1, -2] starts(%i) : tensor<1x3xf32> into tensor<5x6xf32>
    %s = tj.scatter %w into %flat[%idx], "IndexError: index out of bounds in an assignment" : tensor<2xf32> into tensor<6xf32>, tensor<2xi64>
    func.return
  }
}

// CHECK: %[[I:.*]] = tj.to_index %{{.*}}, size = 5, "IndexError: index out of bounds for axis 0 with size 5" : tensor<i64>
// CHECK: tj.to_index %{{.*}}, size = -1 dim(%{{.*}}), "IndexError: index out of bounds" : tensor<i64>
// CHECK: tj.insert_slice %{{.*}} into %{{.*}}, start = [-9223372036854775808, 5], step = [1, -2] starts(%[[I]]) : tensor<1x3xf32> into tensor<5x6xf32>
// CHECK: tj.scatter %{{.*}} into %{{.*}}[%{{.*}}], "IndexError: index out of bounds in an assignment" : tensor<2xf32> into tensor<6xf32>, tensor<2xi64>
