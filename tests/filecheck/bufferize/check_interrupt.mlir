// The Ctrl-C ops lower-control-flow puts in (a check per staged loop trip, a clear at the
// entry) become upstream MLIR in bufferize: calls of two functions the code generator
// provides (codegen/interrupts.py emits them inline: a load and a store of the process's
// flag), the check's result asserted with the KeyboardInterrupt message.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @spin(%n: tensor<i64>) -> tensor<i64> {
    tj.clear_interrupt
    %r = scf.while (%a = %n) : (tensor<i64>) -> tensor<i64> {
      tj.check_interrupt
      %z = tj.constant dense<0> : tensor<i64>
      %c = tj.compare "gt" %a, %z : tensor<i64> -> tensor<i1>
      %p = tensor.extract %c[] : tensor<i1>
      scf.condition(%p) %a : tensor<i64>
    } do {
    ^bb0(%b: tensor<i64>):
      %one = tj.constant dense<1> : tensor<i64>
      %m = tj.sub %b, %one : tensor<i64>
      scf.yield %m : tensor<i64>
    }
    func.return %r : tensor<i64>
  }
}

// CHECK-DAG:  func.func private @tracejit_interrupted() -> i1
// CHECK-DAG:  func.func private @tracejit_clear_interrupt() -> ()
// CHECK:      func.func @spin(
// CHECK-NEXT:   func.call @tracejit_clear_interrupt() : () -> ()
// CHECK:        scf.while
// CHECK-NEXT:     %[[STOP:.*]] = func.call @tracejit_interrupted() : () -> i1
// CHECK-NEXT:     %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:     %[[GO:.*]] = arith.xori %[[STOP]], %[[TRUE]] : i1
// CHECK-NEXT:     cf.assert %[[GO]], "KeyboardInterrupt: a staged loop of the compiled function was interrupted"
// CHECK-NOT:  tj.check_interrupt
// CHECK-NOT:  tj.clear_interrupt
