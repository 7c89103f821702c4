// The shape and indexing ops print, parse back and print the same text.
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @shapes(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %v: tensor<f32>, %i: tensor<4xi64>, %u: tensor<2x2xui8>) -> tensor<2x4x2xf32> {
    %r = tj.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
    %t = tj.transpose %x, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
    %s = tj.slice %x, start = [1, 2], step = [1, -1] : tensor<2x3xf32> to tensor<1x3xf32>
    %c = tj.concat axis = 0, %x, %y, %s : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
    %p = tj.pad %x, %v, low = [1, 0], high = [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
    %g = tj.gather %t[%i], axis = 0, "IndexError: index out of bounds for axis 0 with size 3 (f.py:3)" : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
    %h = tj.gather %t[%u], axis = 1, "IndexError: index out of bounds" : (tensor<3x2xf32>, tensor<2x2xui8>) -> tensor<3x2x2xf32>
    %e = tj.reshape %g : tensor<4x2xf32> to tensor<2x4x1xf32>
    %b = tj.broadcast_in_dim %e, dims = [0, 1, 2] : tensor<2x4x1xf32> to tensor<2x4x2xf32>
    func.return %b : tensor<2x4x2xf32>
  }
}

// CHECK:      %{{.*}} = tj.reshape %{{.*}} : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT: %[[T:.*]] = tj.transpose %{{.*}}, permutation = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT: %[[S:.*]] = tj.slice %{{.*}}, start = [1, 2], step = [1, -1] : tensor<2x3xf32> to tensor<1x3xf32>
// CHECK-NEXT: %{{.*}} = tj.concat axis = 0, %{{.*}}, %{{.*}}, %[[S]] : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = tj.pad %{{.*}}, %{{.*}}, low = [1, 0], high = [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
// CHECK-NEXT: %[[G:.*]] = tj.gather %[[T]][%{{.*}}], axis = 0, "IndexError: index out of bounds for axis 0 with size 3 (f.py:3)" : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
// CHECK-NEXT: %{{.*}} = tj.gather %[[T]][%{{.*}}], axis = 1, "IndexError: index out of bounds" : (tensor<3x2xf32>, tensor<2x2xui8>) -> tensor<3x2x2xf32>
// CHECK-NEXT: %{{.*}} = tj.reshape %[[G]] : tensor<4x2xf32> to tensor<2x4x1xf32>
