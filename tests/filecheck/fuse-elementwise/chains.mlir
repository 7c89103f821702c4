// fuse-elementwise: the W2 body (x**2 + 3*y - tanh(x)*0.5) and the W3 body
// (mean((x - y)**2)) each become one tj.fused kernel; splat constants are copied into
// the kernel (no constant tensor is left), the reduction is the kernel's output and the
// division by the count (0-d, another domain) is a kernel of its own.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s

builtin.module {
  func.func @w2(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
    %c2 = tj.constant dense<2.0> : tensor<8xf32>
    %p = tj.pow %x, %c2 : tensor<8xf32>
    %c3 = tj.constant dense<3.0> : tensor<8xf32>
    %m = tj.mul %c3, %y : tensor<8xf32>
    %a = tj.add %p, %m : tensor<8xf32>
    %t = tj.tanh %x : tensor<8xf32>
    %h = tj.constant dense<0.5> : tensor<8xf32>
    %th = tj.mul %t, %h : tensor<8xf32>
    %r = tj.sub %a, %th : tensor<8xf32>
    func.return %r : tensor<8xf32>
  }

  func.func @w3(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<f32> {
    %d = tj.sub %x, %y : tensor<8xf32>
    %c2 = tj.constant dense<2.0> : tensor<8xf32>
    %p = tj.pow %d, %c2 : tensor<8xf32>
    %s = tj.reduce "sum" %p, axes = [0] : tensor<8xf32> to tensor<f32>
    %w = tj.cast %s : tensor<f32> to tensor<f64>
    %n = tj.constant dense<8.0> : tensor<f64>
    %q = tj.div %w, %n : tensor<f64>
    %r = tj.cast %q : tensor<f64> to tensor<f32>
    func.return %r : tensor<f32>
  }
}

// CHECK-LABEL: func.func @w2
// CHECK-NEXT:    %[[K:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[C2:.*]] = tj.constant dense<2.000000e+00> : tensor<8xf32>
// CHECK-NEXT:      %[[P:.*]] = tj.pow %[[X]], %[[C2]]
// CHECK-NEXT:      tj.constant dense<3.000000e+00>
// CHECK-NEXT:      tj.mul
// CHECK-NEXT:      tj.add
// CHECK-NEXT:      tj.tanh %[[X]]
// CHECK-NEXT:      tj.constant dense<5.000000e-01>
// CHECK-NEXT:      tj.mul
// CHECK-NEXT:      %[[R:.*]] = tj.sub
// CHECK-NEXT:      tj.yield %[[R]] : tensor<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]] : tensor<8xf32>

// CHECK-LABEL: func.func @w3
// CHECK-NEXT:    %[[S:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[D:.*]] = tj.sub %[[X]], %[[Y]]
// CHECK-NEXT:      tj.constant dense<2.000000e+00>
// CHECK-NEXT:      %[[P:.*]] = tj.pow %[[D]]
// CHECK-NEXT:      %[[SUM:.*]] = tj.reduce "sum" %[[P]], axes = [0] : tensor<8xf32> to tensor<f32>
// CHECK-NEXT:      tj.yield %[[SUM]] : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.*]] = tj.fused %[[S]] : (tensor<f32>) -> tensor<f32> {
// CHECK:           tj.div
// CHECK:         }
// CHECK-NEXT:    func.return %[[M]] : tensor<f32>
