// tj.fused prints, parses back and prints the same text (multi-output, a reduction
// kernel, a broadcast input, run-time sizes and starts as `index` inputs with a chain of
// views). Bodies that are not one loop nest: fused_invalid.mlir.
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @f(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>, %m: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    %r, %s = tj.fused %x, %y, %m : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    ^bb0(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>, %c: tensor<4xf32>):
      %two = tj.constant dense<2.0> : tensor<8x4xf32>
      %e = tj.exp %a : tensor<8x4xf32>
      %mb = tj.broadcast_in_dim %c, dims = [1] : tensor<4xf32> to tensor<8x4xf32>
      %d = tj.sub %e, %mb : tensor<8x4xf32>
      %p = tj.mul %d, %two : tensor<8x4xf32>
      %lt = tj.compare "lt" %p, %b : tensor<8x4xf32> -> tensor<8x4xi1>
      %q = tj.select %lt, %p, %b : tensor<8x4xi1>, tensor<8x4xf32>
      tj.yield %p, %q : tensor<8x4xf32>, tensor<8x4xf32>
    }
    func.return %r, %s : tensor<8x4xf32>, tensor<8x4xf32>
  }

  func.func @g(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<f32> {
    %k = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %d = tj.sub %a, %b : tensor<8xf32>
      %q = tj.mul %d, %d : tensor<8xf32>
      %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
      tj.yield %r : tensor<f32>
    }
    func.return %k : tensor<f32>
  }

  func.func @h(%x: tensor<20x20xf64>, %i: index, %j: index) -> tensor<f64> {
    %k = tj.fused %x, %i, %j : (tensor<20x20xf64>, index, index) -> tensor<f64> {
    ^bb0(%a: tensor<20x20xf64>, %row: index, %n: index):
      %s = tj.slice %a, start = [-9223372036854775808, 0], step = [1, 1] starts(%row) sizes(%n) : tensor<20x20xf64> to tensor<1x?xf64>
      %v = tj.reshape %s sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
      %q = tj.mul %v, %v : tensor<?xf64>
      %r = tj.reduce "sum" %q, axes = [0] : tensor<?xf64> to tensor<f64>
      tj.yield %r : tensor<f64>
    }
    func.return %k : tensor<f64>
  }
}

// CHECK:      %r, %s = tj.fused %x, %y, %m : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
// CHECK-NEXT: ^{{.*}}(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>, %c: tensor<4xf32>):
// CHECK-NEXT:   %two = tj.constant dense<2.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT:   %e = tj.exp %a : tensor<8x4xf32>
// CHECK-NEXT:   %mb = tj.broadcast_in_dim %c, dims = [1] : tensor<4xf32> to tensor<8x4xf32>
// CHECK-NEXT:   %d = tj.sub %e, %mb : tensor<8x4xf32>
// CHECK-NEXT:   %p = tj.mul %d, %two : tensor<8x4xf32>
// CHECK-NEXT:   %lt = tj.compare "lt" %p, %b : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:   %q = tj.select %lt, %p, %b : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK-NEXT:   tj.yield %p, %q : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: }
// CHECK:      %k = tj.fused %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
// CHECK-NEXT: ^{{.*}}(%a: tensor<8xf32>, %b: tensor<8xf32>):
// CHECK-NEXT:   %d = tj.sub %a, %b : tensor<8xf32>
// CHECK-NEXT:   %q = tj.mul %d, %d : tensor<8xf32>
// CHECK-NEXT:   %r = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
// CHECK-NEXT:   tj.yield %r : tensor<f32>
// CHECK-NEXT: }
// CHECK:      %k = tj.fused %x, %i, %j : (tensor<20x20xf64>, index, index) -> tensor<f64> {
// CHECK-NEXT: ^{{.*}}(%a: tensor<20x20xf64>, %row: index, %n: index):
// CHECK-NEXT:   %s = tj.slice %a, start = [-9223372036854775808, 0], step = [1, 1] starts(%row) sizes(%n) : tensor<20x20xf64> to tensor<1x?xf64>
// CHECK-NEXT:   %v = tj.reshape %s sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
// CHECK-NEXT:   %q = tj.mul %v, %v : tensor<?xf64>
// CHECK-NEXT:   %r = tj.reduce "sum" %q, axes = [0] : tensor<?xf64> to tensor<f64>
// CHECK-NEXT:   tj.yield %r : tensor<f64>
// CHECK-NEXT: }
