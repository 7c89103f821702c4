// fuse-elementwise: an op with several consumers. A cheap one (an add) is recomputed in a
// kernel that cannot also produce it (a reduction kernel cannot write a full-shape
// result); an expensive one (tanh) is materialised and read by that kernel; consumers that
// can share one loop nest become one multi-output kernel computing the shared op once.
// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s
// RUN: tracejit-opt %s -p "fuse-elementwise{recompute-budget=0}" | filecheck %s --check-prefix=NOBUDGET

builtin.module {
  func.func @cheap(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
    %a = tj.add %x, %y : tensor<8xf32>
    %q = tj.mul %a, %a : tensor<8xf32>
    %s = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
    func.return %a, %s : tensor<8xf32>, tensor<f32>
  }

  func.func @expensive(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
    %t = tj.tanh %x : tensor<8xf32>
    %q = tj.mul %t, %t : tensor<8xf32>
    %s = tj.reduce "sum" %q, axes = [0] : tensor<8xf32> to tensor<f32>
    func.return %t, %s : tensor<8xf32>, tensor<f32>
  }

  func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %t = tj.tanh %x : tensor<8xf32>
    %one = tj.constant dense<1.0> : tensor<8xf32>
    %a = tj.add %t, %one : tensor<8xf32>
    %b = tj.mul %t, %t : tensor<8xf32>
    func.return %a, %b : tensor<8xf32>, tensor<8xf32>
  }

  func.func @siblings(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<f32>, tensor<f32>) {
    %d = tj.sub %x, %y : tensor<8xf32>
    %s = tj.reduce "sum" %d, axes = [0] : tensor<8xf32> to tensor<f32>
    %p = tj.mul %x, %y : tensor<8xf32>
    %m = tj.reduce "max" %p, axes = [0] : tensor<8xf32> to tensor<f32>
    func.return %s, %m : tensor<f32>, tensor<f32>
  }
}

// CHECK-LABEL: func.func @cheap
// CHECK-NEXT:    %[[A:.*]] = tj.add %[[X:.*]], %[[Y:.*]] : tensor<8xf32>
// CHECK-NEXT:    %[[S:.*]] = tj.fused %[[X]], %[[Y]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32> {
// CHECK-NEXT:    ^{{.*}}(%[[XA:.*]]: tensor<8xf32>, %[[YA:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[A2:.*]] = tj.add %[[XA]], %[[YA]]
// CHECK-NEXT:      %[[Q:.*]] = tj.mul %[[A2]], %[[A2]]
// CHECK-NEXT:      %[[R:.*]] = tj.reduce "sum" %[[Q]]
// CHECK-NEXT:      tj.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]], %[[S]]

// NOBUDGET-LABEL: func.func @cheap
// NOBUDGET-NEXT:    %[[A:.*]] = tj.add
// NOBUDGET-NEXT:    tj.fused %[[A]] : (tensor<8xf32>) -> tensor<f32> {
// NOBUDGET-NOT:     tj.add
// NOBUDGET:         tj.reduce "sum"

// CHECK-LABEL: func.func @expensive
// CHECK-NEXT:    %[[T:.*]] = tj.tanh %{{.*}} : tensor<8xf32>
// CHECK-NEXT:    %[[S:.*]] = tj.fused %[[T]] : (tensor<8xf32>) -> tensor<f32> {
// CHECK-NEXT:    ^{{.*}}(%[[TA:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[Q:.*]] = tj.mul %[[TA]], %[[TA]]
// CHECK-NEXT:      tj.reduce "sum" %[[Q]]
// CHECK-NEXT:      tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[T]], %[[S]]

// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = tj.fused %{{.*}} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[XA:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[T:.*]] = tj.tanh %[[XA]]
// CHECK-NOT:       tj.tanh
// CHECK:           tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    %[[S:.*]], %[[M:.*]] = tj.fused %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<f32>) {
// CHECK:           tj.reduce "sum"
// CHECK:           tj.reduce "max"
// CHECK:           tj.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[S]], %[[M]]
