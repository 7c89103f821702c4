// bufferize of a loop that passes its values on to other positions (`a, b = b, a + b`):
// the value that is itself a target is saved to a temporary first. A small static one goes
// on the stack (the code generator allocates a stack slot once, at the function's entry),
// not to the heap: a loop nest carrying its scalars this way allocated and freed a heap
// block on every iteration, 300x slower than the loop's own work.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @fib(%n: tensor<i64>) -> tensor<i64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %i_end, %a_end, %b_end = tj.while %zero, %zero, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>) {
    ^bb0(%i: tensor<i64>, %a: tensor<i64>, %b: tensor<i64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %a: tensor<i64>, %b: tensor<i64>):
      %next = tj.add %a, %b : tensor<i64>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %b, %next : tensor<i64>, tensor<i64>, tensor<i64>
    }
    func.return %a_end : tensor<i64>
  }
}

// CHECK-LABEL: func.func @fib
// CHECK:         scf.while
// CHECK:         } do {
// CHECK-NOT:       memref.alloc()
// CHECK:           %[[SAVED:.*]] = memref.alloca() alignment = 64 : memref<i64>
// CHECK-NOT:       memref.alloc()
// CHECK:           scf.yield
