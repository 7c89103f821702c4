// Reductions start from linalg.fill of the identity and reduce in a generic; a matmul is
// a generic over (m, n, k); static windows are tensor slices, an empty write is nothing.
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> (tensor<4xf32>, tensor<4x2xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<i64>) {
    %s = tj.reduce "max" %x, axes = [1] : tensor<4x3xf32> to tensor<4xf32>
    %m = tj.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %v = tj.slice %x, start = [1, 0], step = [2, 1] : tensor<4x3xf32> to tensor<2x3xf32>
    %e = tj.slice %x, start = [4, 0], step = [1, 1] : tensor<4x3xf32> to tensor<0x3xf32>
    %u = tj.insert_slice %e into %x, start = [4, 0], step = [1, 1] : tensor<0x3xf32> into tensor<4x3xf32>
    %a = tj.reduce "argmax" %x, axes = [0, 1] : tensor<4x3xf32> to tensor<i64>
    func.return %s, %m, %v, %u, %a : tensor<4xf32>, tensor<4x2xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<i64>
  }
}

// CHECK:      %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK:      linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:        arith.maximumf
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:      tensor.extract_slice %{{.*}}[1, 0] [2, 3] [2, 1] : tensor<4x3xf32> to tensor<2x3xf32>
// CHECK-NOT:  tensor.insert_slice
// CHECK:      linalg.index 0
// CHECK:      func.return %{{.*}}, %{{.*}}, %{{.*}}, %[[X:[^,]*]], %{{.*}} :
