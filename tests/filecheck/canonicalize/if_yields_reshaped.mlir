// canonicalize: a tj.if in a loop body whose result is the loop's next value, yielded by
// one branch as a reshape from a static T and by the other as the loop value unchanged
// (a loop with a `break` stages its body so), yields it in T and reshapes after the if.
// Then the loop carries it in T (WhileCarriesReshaped): no reshape is left in the body.
// An if whose result is not the loop's next value (@not_state) is left as it is.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

// CHECK-LABEL: func.func @scatter_until_done
// CHECK:         tj.reshape %{{.*}} : tensor<4x5xi64> to tensor<20xi64>
// CHECK:         tj.while
// CHECK-NOT:     tj.reshape
// CHECK:         tj.if %{{.*}} : tensor<i1> -> tensor<20xi64> {
// CHECK-NOT:     tj.reshape
// CHECK:         tj.scatter %{{.*}} into %{{.*}}[%{{.*}}]
// CHECK-NOT:     tj.reshape
// CHECK:         tj.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<20xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    tj.reshape %{{.*}} : tensor<20xi64> to tensor<4x5xi64>

builtin.module {
  func.func @scatter_until_done(%n0: tensor<4x5xi64>, %at: tensor<3xi64>, %stop: tensor<i1>) -> tensor<4x5xi64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %i, %n = tj.while %zero, %n0 : (tensor<i64>, tensor<4x5xi64>) -> (tensor<i64>, tensor<4x5xi64>) {
    ^bb0(%a: tensor<i64>, %b: tensor<4x5xi64>):
      %ten = tj.constant dense<10> : tensor<i64>
      %go = tj.compare "lt" %a, %ten : tensor<i64> -> tensor<i1>
      tj.condition %go : tensor<i1>
    } do {
    ^bb0(%x: tensor<i64>, %y: tensor<4x5xi64>):
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.add %x, %one : tensor<i64>
      %r = tj.if %stop : tensor<i1> -> tensor<4x5xi64> {
        tj.yield %y : tensor<4x5xi64>
      } else {
        %flat = tj.reshape %y : tensor<4x5xi64> to tensor<20xi64>
        %v = tj.broadcast_in_dim %next, dims = [] : tensor<i64> to tensor<3xi64>
        %set = tj.scatter %v into %flat[%at], "IndexError: out of bounds" : tensor<3xi64> into tensor<20xi64>, tensor<3xi64>
        %back = tj.reshape %set : tensor<20xi64> to tensor<4x5xi64>
        tj.yield %back : tensor<4x5xi64>
      }
      tj.yield %next, %r : tensor<i64>, tensor<4x5xi64>
    }
    func.return %n : tensor<4x5xi64>
  }

  // CHECK-LABEL: func.func @not_state
  // CHECK:         tj.if %{{.*}} : tensor<i1> -> tensor<4x5xi64>
  // CHECK:           tj.reshape %{{.*}} : tensor<20xi64> to tensor<4x5xi64>
  func.func @not_state(%m: tensor<4x5xi64>, %flat: tensor<20xi64>, %c: tensor<i1>) -> tensor<4x5xi64> {
    %r = tj.if %c : tensor<i1> -> tensor<4x5xi64> {
      %back = tj.reshape %flat : tensor<20xi64> to tensor<4x5xi64>
      tj.yield %back : tensor<4x5xi64>
    } else {
      tj.yield %m : tensor<4x5xi64>
    }
    func.return %r : tensor<4x5xi64>
  }
}
