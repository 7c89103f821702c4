// tj.check_interrupt (a staged loop's trip, from lower-control-flow) becomes a read of the
// Ctrl-C flag and an assert, whose failure returns the KeyboardInterrupt status.
// RUN: tracejit-opt %s -p lower-asserts | filecheck %s

builtin.module {
  func.func @spin(%n: memref<i64>) {
    tj.clear_interrupt
    cf.br ^loop
  ^loop:
    tj.check_interrupt
    %v = memref.load %n[] : memref<i64>
    %zero = arith.constant 0 : i64
    %more = arith.cmpi sgt, %v, %zero : i64
    cf.cond_br %more, ^loop, ^done
  ^done:
    func.return
  }
}

// CHECK:      builtin.module attributes {tj.messages = ["KeyboardInterrupt: a staged loop of the compiled function was interrupted"]} {
// CHECK:        func.func @spin(%{{.*}}: memref<i64>) -> i32 {
// CHECK-NEXT:     tj.clear_interrupt
// CHECK-NEXT:     cf.br ^[[LOOP:.*]]
// CHECK-NEXT:   ^[[LOOP]]:
// CHECK-NEXT:     %[[STOP:.*]] = tj.interrupted
// CHECK-NEXT:     %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:     %[[GO:.*]] = arith.xori %[[STOP]], %[[TRUE]] : i1
// CHECK-NEXT:     cf.cond_br %[[GO]], ^[[TRIP:.*]], ^[[FAIL:.*]]
// CHECK:        ^[[FAIL]]:
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     func.return %[[ONE]] : i32
// CHECK-NOT:    tj.check_interrupt
