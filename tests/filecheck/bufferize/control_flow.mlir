// bufferize of scf.if / scf.while on tensors: if-results and loop values get buffers
// allocated before the op (here the output, or the stack: small static buffers); branches
// and the loop body copy their values into them; the loop carries nothing in SSA form.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

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

// CHECK:      func.func @f(%[[P:.*]]: memref<i1>, %[[A:.*]]: memref<4xf32>, %[[N:.*]]: memref<i64>, %[[OUT:.*]]: memref<4xf32>) {
// The Ctrl-C ops become calls of functions the code generator provides (check_interrupt.mlir).
// CHECK-NEXT:   func.call @tracejit_clear_interrupt() : () -> ()
// CHECK-NEXT:   %[[PV:.*]] = memref.load %[[P]][] : memref<i1>
// The if's result is the returned loop value's initial state, with no other user: both live
// in the output buffer (passes/bufferize/output_chains.py), so the loop starts with no copy.
// CHECK-NEXT:   scf.if %[[PV]] {
// CHECK-NEXT:     linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK:        } else {
// CHECK:          arith.negf
// CHECK:        linalg.generic {{.*}} outs(%[[OUT]] : memref<4xf32>)
// CHECK:        %[[I:.*]] = memref.alloca() alignment = 64 : memref<i64>
// CHECK:        linalg.generic {{.*}} ins(%[[N]] : memref<i64>) outs(%[[I]] : memref<i64>)
// CHECK-NOT:    outs(%[[OUT]]
// CHECK:        scf.while () : () -> () {
// CHECK-NEXT:     func.call @tracejit_interrupted() : () -> i1
// CHECK:          scf.condition(%{{.*}})
// CHECK-NEXT:   } do {
// CHECK:          math.exp
// CHECK:          linalg.generic {{.*}} outs(%[[I]] : memref<i64>)
// CHECK:          linalg.generic {{.*}} outs(%[[OUT]] : memref<4xf32>)
// CHECK:          scf.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
