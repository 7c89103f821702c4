// fuse-elementwise never fuses across a tj.print or a tj.if (ops with effects or regions
// are barriers: nothing moves across them, so effects keep their order), fuses inside a
// tj.if branch on its own, and never fuses argmax/argmin (an index reduction).
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @print(%x: tensor<8xf32>) -> tensor<8xf32> {
    %one = tj.constant dense<1.0> : tensor<8xf32>
    %a = tj.add %x, %one : tensor<8xf32>
    %b = tj.mul %a, %a : tensor<8xf32>
    tj.print %b {pieces = ["", "\n"]} : tensor<8xf32>
    %c = tj.sub %b, %x : tensor<8xf32>
    %d = tj.exp %c : tensor<8xf32>
    func.return %d : tensor<8xf32>
  }

  func.func @branch(%p: tensor<i1>, %x: tensor<8xf32>) -> tensor<8xf32> {
    %a = tj.neg %x : tensor<8xf32>
    %b = tj.exp %a : tensor<8xf32>
    %r = tj.if %p : tensor<i1> -> tensor<8xf32> {
      %t = tj.tanh %b : tensor<8xf32>
      %u = tj.mul %t, %x : tensor<8xf32>
      tj.yield %u : tensor<8xf32>
    } else {
      tj.yield %b : tensor<8xf32>
    }
    %c = tj.add %r, %b : tensor<8xf32>
    %d = tj.abs %c : tensor<8xf32>
    func.return %d : tensor<8xf32>
  }

  func.func @argmax(%x: tensor<8xf32>) -> (tensor<i64>, tensor<f32>) {
    %e = tj.exp %x : tensor<8xf32>
    %i = tj.reduce "argmax" %e, axes = [0] : tensor<8xf32> to tensor<i64>
    %n = tj.neg %x : tensor<8xf32>
    %m = tj.reduce "max" %n, axes = [0] : tensor<8xf32> to tensor<f32>
    func.return %i, %m : tensor<i64>, tensor<f32>
  }
}

// CHECK-LABEL: func.func @print
// CHECK-NEXT:    %[[B:.*]] = tj.fused %{{.*}} : (tensor<8xf32>) -> tensor<8xf32> {
// CHECK:           tj.add
// CHECK-NEXT:      tj.mul
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tj.print %[[B]]
// CHECK-NEXT:    %[[D:.*]] = tj.fused %[[B]], %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK:           tj.sub
// CHECK-NEXT:      tj.exp
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[D]]

// CHECK-LABEL: func.func @branch
// CHECK-NEXT:    %[[B:.*]] = tj.fused %{{.*}} : (tensor<8xf32>) -> tensor<8xf32> {
// CHECK:           tj.neg
// CHECK-NEXT:      tj.exp
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = tj.if %{{.*}} : tensor<i1> -> tensor<8xf32> {
// CHECK-NEXT:      %[[U:.*]] = tj.fused %[[B]], %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK:             tj.tanh
// CHECK-NEXT:        tj.mul
// CHECK-NEXT:        tj.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      tj.yield %[[U]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tj.yield %[[B]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D:.*]] = tj.fused %[[R]], %[[B]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK:           tj.add
// CHECK-NEXT:      tj.abs
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[D]]

// CHECK-LABEL: func.func @argmax
// CHECK-NEXT:    %[[E:.*]] = tj.exp %{{.*}} : tensor<8xf32>
// CHECK-NEXT:    %[[I:.*]] = tj.reduce "argmax" %[[E]]
// CHECK-NEXT:    %[[M:.*]] = tj.fused %{{.*}} : (tensor<8xf32>) -> tensor<f32> {
// CHECK:           tj.neg
// CHECK-NEXT:      tj.reduce "max"
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[I]], %[[M]]
