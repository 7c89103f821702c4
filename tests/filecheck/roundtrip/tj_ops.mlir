// Every tj op prints, parses back and prints the same text.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @all_ops(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %i: tensor<4x3xi32>, %u: tensor<2xui8>) -> tensor<3xf32> {
    %c = tj.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %s = tj.constant dense<2.5> : tensor<f32>
    %nan = tj.constant dense<"0x0000C07F0000807F"> : tensor<2xf32>
    %b = tj.broadcast_in_dim %y, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
    %n = tj.neg %x : tensor<4x3xf32>
    %a = tj.abs %n : tensor<4x3xf32>
    %e = tj.exp %a : tensor<4x3xf32>
    %l = tj.log %e : tensor<4x3xf32>
    %t = tj.tanh %l : tensor<4x3xf32>
    %q = tj.sqrt %t : tensor<4x3xf32>
    %add = tj.add %q, %b : tensor<4x3xf32>
    %sub = tj.sub %add, %b : tensor<4x3xf32>
    %mul = tj.mul %sub, %b : tensor<4x3xf32>
    %div = tj.div %mul, %b : tensor<4x3xf32>
    %pow = tj.pow %div, %b : tensor<4x3xf32>
    %max = tj.maximum %pow, %b : tensor<4x3xf32>
    %min = tj.minimum %max, %b : tensor<4x3xf32>
    %ci = tj.cast %i : tensor<4x3xi32> to tensor<4x3xf32>
    %ipow = tj.pow %i, %i : tensor<4x3xi32>
    %r = tj.reduce "sum" %min, axes = [0] : tensor<4x3xf32> to tensor<3xf32>
    %m = tj.reduce "max" %ci, axes = [0, 1] : tensor<4x3xf32> to tensor<f32>
    %w = tj.broadcast_in_dim %y, dims = [0] : tensor<3xf32> to tensor<3x5xf32>
    %mm = tj.matmul %x, %w : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    %uu = tj.add %u, %u : tensor<2xui8>
    func.return %r : tensor<3xf32>
  }
}

// CHECK:      func.func @all_ops(%{{.*}}: tensor<4x3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<4x3xi32>, %{{.*}}: tensor<2xui8>) -> tensor<3xf32> {
// CHECK-NEXT:   %{{.*}} = tj.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:   %{{.*}} = tj.constant dense<2.500000e+00> : tensor<f32>
// CHECK-NEXT:   %{{.*}} = tj.constant dense<"0x0000C07F0000807F"> : tensor<2xf32>
// CHECK-NEXT:   %{{.*}} = tj.broadcast_in_dim %{{.*}}, dims = [1] : tensor<3xf32> to tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.neg %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.abs %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.exp %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.log %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.tanh %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.sqrt %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.add %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.sub %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.mul %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.div %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.pow %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.maximum %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.minimum %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.cast %{{.*}} : tensor<4x3xi32> to tensor<4x3xf32>
// CHECK-NEXT:   %{{.*}} = tj.pow %{{.*}}, %{{.*}} : tensor<4x3xi32>
// CHECK-NEXT:   %{{.*}} = tj.reduce "sum" %{{.*}}, axes = [0] : tensor<4x3xf32> to tensor<3xf32>
// CHECK-NEXT:   %{{.*}} = tj.reduce "max" %{{.*}}, axes = [0, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK-NEXT:   %{{.*}} = tj.broadcast_in_dim %{{.*}}, dims = [0] : tensor<3xf32> to tensor<3x5xf32>
// CHECK-NEXT:   %{{.*}} = tj.matmul %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:   %{{.*}} = tj.add %{{.*}}, %{{.*}} : tensor<2xui8>
// CHECK-NEXT:   func.return %{{.*}} : tensor<3xf32>
