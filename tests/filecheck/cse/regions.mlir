// cse inside regions: a pure op in a loop body reuses the identical op that dominates it;
// a Variable read in the body is not merged with the read before the loop (the body writes
// the Variable), nor is the read after the loop; the write stays in the body.
// Identical asserts and prints inside a tj.if branch are all kept, in order.
// RUN: tracejit-opt %s -p cse | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %v: !tj.var<tensor<3xf32>>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %r0 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    %e0 = tj.exp %x : tensor<3xf32>
    %w:2 = tj.while %x, %n : (tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %z = tj.constant dense<0> : tensor<i64>
      %c = tj.compare "gt" %i, %z : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %r1 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
      %e1 = tj.exp %x : tensor<3xf32>
      %s = tj.add %r1, %e1 : tensor<3xf32>
      tj.var_write %s, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
      %one = tj.constant dense<1> : tensor<i64>
      %j = tj.sub %i, %one : tensor<i64>
      tj.yield %s, %j : tensor<3xf32>, tensor<i64>
    }
    %r2 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    %t = tj.add %r0, %e0 : tensor<3xf32>
    func.return %w#0, %r2, %t : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }

  func.func @g(%x: tensor<3xf32>, %p: tensor<i1>) {
    tj.if %p : tensor<i1> {
      tj.assert %p, "InvalidArgumentError: first" : tensor<i1>
      tj.assert %p, "InvalidArgumentError: first" : tensor<i1>
      %a = tj.exp %x : tensor<3xf32>
      %b = tj.exp %x : tensor<3xf32>
      tj.print %a {pieces = ["", "\n"]} : tensor<3xf32>
      tj.print %b {pieces = ["", "\n"]} : tensor<3xf32>
      tj.assert %p, "InvalidArgumentError: second" : tensor<i1>
      tj.yield
    } else {
      tj.yield
    }
    func.return
  }
}

// CHECK-LABEL: func.func @f(
// CHECK:         %[[R0:.*]] = tj.var_read %v
// CHECK-NEXT:    %[[E0:.*]] = tj.exp %x
// CHECK-NEXT:    tj.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb{{.*}}(
// CHECK-NEXT:      %[[R1:.*]] = tj.var_read %v
// CHECK-NEXT:      %[[S:.*]] = tj.add %[[R1]], %[[E0]]
// CHECK-NEXT:      tj.var_write %[[S]], %v
// CHECK:         %[[R2:.*]] = tj.var_read %v
// CHECK-NEXT:    %[[T:.*]] = tj.add %[[R0]], %[[E0]]
// CHECK-NEXT:    func.return %{{.*}}, %[[R2]], %[[T]]

// CHECK-LABEL: func.func @g(
// CHECK-NEXT:    tj.if %p : tensor<i1> {
// CHECK-NEXT:      tj.assert %p, "InvalidArgumentError: first"
// CHECK-NEXT:      tj.assert %p, "InvalidArgumentError: first"
// CHECK-NEXT:      %[[A:.*]] = tj.exp %x
// CHECK-NEXT:      tj.print %[[A]]
// CHECK-NEXT:      tj.print %[[A]]
// CHECK-NEXT:      tj.assert %p, "InvalidArgumentError: second"
// CHECK-NEXT:      tj.yield
