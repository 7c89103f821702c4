// lower-asserts: kernels return an i32 status; each cf.assert becomes a branch to a
// block returning its 1-based index into the module's tj.messages.
// RUN: tracejit-opt %s -p lower-asserts | filecheck %s

builtin.module {
  func.func @f(%x: memref<i1>, %y: memref<i1>) {
    %a = memref.load %x[] : memref<i1>
    cf.assert %a, "IndexError: first check"
    %b = memref.load %y[] : memref<i1>
    cf.assert %b, "InvalidArgumentError: second check"
    func.return
  }
}

// CHECK:      builtin.module attributes {tj.messages = ["IndexError: first check", "InvalidArgumentError: second check"]} {
// CHECK-NEXT:   func.func @f(%{{.*}}: memref<i1>, %{{.*}}: memref<i1>) -> i32 {
// CHECK-NEXT:     %[[A:.*]] = memref.load
// CHECK-NEXT:     cf.cond_br %[[A]], ^[[OK1:.*]], ^[[FAIL1:.*]]
// CHECK-NEXT:   ^[[OK1]]:
// CHECK-NEXT:     %[[B:.*]] = memref.load
// CHECK-NEXT:     cf.cond_br %[[B]], ^[[OK2:.*]], ^[[FAIL2:.*]]
// CHECK-NEXT:   ^[[OK2]]:
// CHECK-NEXT:     %[[OK:.*]] = arith.constant 0 : i32
// CHECK-NEXT:     func.return %[[OK]] : i32
// CHECK-NEXT:   ^[[FAIL1]]:
// CHECK-NEXT:     %[[S1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     func.return %[[S1]] : i32
// CHECK-NEXT:   ^[[FAIL2]]:
// CHECK-NEXT:     %[[S2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     func.return %[[S2]] : i32
