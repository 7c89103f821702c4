// dce inside regions: unused pure work in a branch or a loop body is removed; a loop whose
// body only computes unused values is removed whole; a loop whose body prints or writes a
// Variable is kept with its effects in order, even when its results are unused.
// RUN: tracejit-opt %s -p dce | filecheck %s
// RUN: tracejit-opt %s -p dce | filecheck %s --check-prefix=GONE

builtin.module {
  func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %n: tensor<i64>, %v: !tj.var<tensor<3xf32>>) -> tensor<3xf32> {
    %r = tj.if %p : tensor<i1> -> tensor<3xf32> {
      %unused = tj.exp %x : tensor<3xf32>
      %m = tj.neg %x : tensor<3xf32>
      tj.yield %m : tensor<3xf32>
    } else {
      tj.yield %x : tensor<3xf32>
    }
    %pure:2 = tj.while %x, %n : (tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %z = tj.constant dense<0> : tensor<i64>
      %c = tj.compare "gt" %i, %z : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %e = tj.exp %a : tensor<3xf32>
      %one = tj.constant dense<1> : tensor<i64>
      %j = tj.sub %i, %one : tensor<i64>
      tj.yield %e, %j : tensor<3xf32>, tensor<i64>
    }
    %loud:2 = tj.while %x, %n : (tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %z = tj.constant dense<0> : tensor<i64>
      %c = tj.compare "gt" %i, %z : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%a: tensor<3xf32>, %i: tensor<i64>):
      %dead = tj.sin %a : tensor<3xf32>
      tj.print %a {pieces = ["", "\n"]} : tensor<3xf32>
      tj.var_write %a, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
      %one = tj.constant dense<1> : tensor<i64>
      %j = tj.sub %i, %one : tensor<i64>
      tj.yield %a, %j : tensor<3xf32>, tensor<i64>
    }
    func.return %r : tensor<3xf32>
  }
}

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %[[R:.*]] = tj.if %p : tensor<i1> -> tensor<3xf32> {
// CHECK-NEXT:      %[[M:.*]] = tj.neg %x
// CHECK-NEXT:      tj.yield %[[M]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tj.yield %x
// CHECK-NEXT:    }
// CHECK-NEXT:    tj.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb{{.*}}(
// CHECK-NEXT:      tj.print
// CHECK-NEXT:      tj.var_write
// CHECK:         func.return %[[R]]

// GONE-NOT: tj.exp
// GONE-NOT: tj.sin
// GONE-NOT: %pure
