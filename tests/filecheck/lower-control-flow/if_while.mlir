// lower-control-flow: tj.if / tj.while become scf.if / scf.while on tensors; the
// tensor<i1> predicates become i1 scalars through tensor.extract.
// RUN: tracejit-opt %s -p lower-control-flow | filecheck %s

builtin.module {
  func.func @f(%p: tensor<i1>, %a: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
    %r = tj.if %p : tensor<i1> -> tensor<4xf32> {
      tj.yield %a : tensor<4xf32>
    } else {
      %neg = tj.neg %a : tensor<4xf32>
      tj.yield %neg : tensor<4xf32>
    }
    %i, %x = tj.while %n, %r : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
    ^bb0(%i1: tensor<i64>, %x1: tensor<4xf32>):
      %c = tj.cast %i1 : tensor<i64> to tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i2: tensor<i64>, %x2: tensor<4xf32>):
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.sub %i2, %one : tensor<i64>
      %y = tj.exp %x2 : tensor<4xf32>
      tj.yield %next, %y : tensor<i64>, tensor<4xf32>
    }
    func.return %x : tensor<4xf32>
  }
}

// A function with a staged loop forgets a Ctrl-C pressed before it was entered, and each
// trip checks for one first (KeyboardInterrupt; bufferize makes it a call and an assert).
// CHECK:      tj.clear_interrupt
// CHECK:      %[[P:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK-NEXT: %[[R:.*]] = scf.if %[[P]] -> (tensor<4xf32>) {
// CHECK-NEXT:   scf.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[NEG:.*]] = tj.neg
// CHECK-NEXT:   scf.yield %[[NEG]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}, %[[X:.*]] = scf.while (%[[I1:.*]] = %{{.*}}, %[[X1:.*]] = %[[R]]) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
// CHECK-NEXT:   tj.check_interrupt
// CHECK-NEXT:   %[[C:.*]] = tj.cast %[[I1]] : tensor<i64> to tensor<i1>
// CHECK-NEXT:   %[[CI:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK-NEXT:   scf.condition(%[[CI]]) %[[I1]], %[[X1]] : tensor<i64>, tensor<4xf32>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^{{.*}}(%{{.*}}: tensor<i64>, %{{.*}}: tensor<4xf32>):
// CHECK:        scf.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<4xf32>
// CHECK:      func.return %[[X]] : tensor<4xf32>
// CHECK-NOT:  tj.if
// CHECK-NOT:  tj.while
