// Every tj.reduce kind prints, parses back and prints the same text.
// RUN: tracejit-opt %s | filecheck %s
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @kinds(%x: tensor<4x3xf32>, %b: tensor<4x3xi1>, %u: tensor<2x0xui8>) {
    %p = tj.reduce "prod" %x, axes = [] : tensor<4x3xf32> to tensor<4x3xf32>
    %mn = tj.reduce "min" %x, axes = [1] : tensor<4x3xf32> to tensor<4xf32>
    %i = tj.reduce "argmax" %x, axes = [0, 1] : tensor<4x3xf32> to tensor<i64>
    %j = tj.reduce "argmin" %x, axes = [0] : tensor<4x3xf32> to tensor<3xi64>
    %a = tj.reduce "any" %b, axes = [1] : tensor<4x3xi1> to tensor<4xi1>
    %l = tj.reduce "all" %b, axes = [0, 1] : tensor<4x3xi1> to tensor<i1>
    %s = tj.reduce "sum" %u, axes = [1] : tensor<2x0xui8> to tensor<2xui8>
    func.return
  }
}

// CHECK:      tj.reduce "prod" %{{.*}}, axes = [] : tensor<4x3xf32> to tensor<4x3xf32>
// CHECK-NEXT: tj.reduce "min" %{{.*}}, axes = [1] : tensor<4x3xf32> to tensor<4xf32>
// CHECK-NEXT: tj.reduce "argmax" %{{.*}}, axes = [0, 1] : tensor<4x3xf32> to tensor<i64>
// CHECK-NEXT: tj.reduce "argmin" %{{.*}}, axes = [0] : tensor<4x3xf32> to tensor<3xi64>
// CHECK-NEXT: tj.reduce "any" %{{.*}}, axes = [1] : tensor<4x3xi1> to tensor<4xi1>
// CHECK-NEXT: tj.reduce "all" %{{.*}}, axes = [0, 1] : tensor<4x3xi1> to tensor<i1>
// CHECK-NEXT: tj.reduce "sum" %{{.*}}, axes = [1] : tensor<2x0xui8> to tensor<2xui8>
