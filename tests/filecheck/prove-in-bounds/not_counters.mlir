// prove-in-bounds leaves the checks of values that are not counters it can bound: a loop
// value the body changes by a non-constant step, one whose condition compares it with
// another loop value, and one stepping away from its bound (`i > -1` with `i += 1` is
// unbounded above); no index is marked in_bounds.
// RUN: tracejit-opt %s -p prove-in-bounds | filecheck %s

builtin.module {
  func.func @f(%t: tensor<8xf32>, %s: tensor<i64>) -> tensor<i64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %r0, %r1 = tj.while %zero, %zero : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>) {
    ^bb0(%i: tensor<i64>, %j: tensor<i64>):
      %eight = tj.constant dense<8> : tensor<i64>
      %ci = tj.compare "lt" %i, %j : tensor<i64> -> tensor<i1>
      tj.condition %ci : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %j: tensor<i64>):
      %ii = tj.to_index %i, size = 8, "IndexError: bound is a loop value" : tensor<i64>
      %jj = tj.to_index %j, size = 8, "IndexError: traced step" : tensor<i64>
      %one = tj.constant dense<1> : tensor<i64>
      %inext = tj.add %i, %one : tensor<i64>
      %jnext = tj.add %j, %s : tensor<i64>
      tj.yield %inext, %jnext : tensor<i64>, tensor<i64>
    }
    %m = tj.constant dense<-1> : tensor<i64>
    %q0 = tj.while %zero : (tensor<i64>) -> (tensor<i64>) {
    ^bb0(%q: tensor<i64>):
      %cq = tj.compare "gt" %q, %m : tensor<i64> -> tensor<i1>
      tj.condition %cq : tensor<i1>
    } do {
    ^bb0(%q: tensor<i64>):
      %qq = tj.to_index %q, size = 8, "IndexError: stepping away" : tensor<i64>
      %one2 = tj.constant dense<1> : tensor<i64>
      %qnext = tj.add %q, %one2 : tensor<i64>
      tj.yield %qnext : tensor<i64>
    }
    func.return %r0 : tensor<i64>
  }
}

// CHECK-NOT:  in_bounds
// CHECK:      "IndexError: bound is a loop value" :
// CHECK:      "IndexError: traced step" :
// CHECK:      "IndexError: stepping away" :
// CHECK-NOT:  in_bounds
