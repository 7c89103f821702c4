// canonicalize drops a tj.while value nothing reads: not the condition, not the body except
// to yield it, not the code after the loop. Here the "ran" flag a staged loop carries for a
// name that named an array before it (frontend/staging/views.py, alias_unless), which no
// write after the loop needed, and a value the body rebinds that nothing reads (%dead).
// A value the condition reads (%n) stays though its result is unused.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  func.func @collatz_steps(%0: tensor<i64>) -> tensor<i64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %no = tj.constant dense<false> : tensor<i1>
    %n, %steps, %ran, %dead = tj.while %0, %zero, %no, %zero : (tensor<i64>, tensor<i64>, tensor<i1>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i1>, tensor<i64>) {
    ^bb0(%a: tensor<i64>, %b: tensor<i64>, %c: tensor<i1>, %d: tensor<i64>):
      %one = tj.constant dense<1> : tensor<i64>
      %go = tj.compare "ne" %a, %one : tensor<i64> -> tensor<i1>
      tj.condition %go : tensor<i1>
    } do {
    ^bb0(%x: tensor<i64>, %s: tensor<i64>, %r: tensor<i1>, %t: tensor<i64>):
      %two = tj.constant dense<2> : tensor<i64>
      %half = tj.floor_divide %x, %two : tensor<i64>
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.add %s, %one : tensor<i64>
      %yes = tj.constant dense<true> : tensor<i1>
      %t2 = tj.add %t, %one : tensor<i64>
      tj.yield %half, %next, %yes, %t2 : tensor<i64>, tensor<i64>, tensor<i1>, tensor<i64>
    }
    func.return %steps : tensor<i64>
  }
}

// CHECK:      %[[ZERO:.*]] = tj.constant dense<0> : tensor<i64>
// CHECK-NEXT: %{{.*}}, %[[STEPS:.*]] = tj.while %{{.*}}, %[[ZERO]] : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>):
// CHECK:      } do {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>):
// CHECK-NOT:  tensor<i1>
// CHECK:      tj.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>
// CHECK:      func.return %[[STEPS]] : tensor<i64>
