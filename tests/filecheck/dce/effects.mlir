// dce removes pure work whose result is unused (non-strict execution) and keeps every
// effect: prints, Variable writes, assertions, and regions that contain effects.
// RUN: tracejit-opt %s -p dce | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %v: !tj.var<tensor<3xf32>>) {
    %unused = tj.exp %x : tensor<3xf32>
    %read = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    tj.print %x {pieces = ["", "\n"]} : tensor<3xf32>
    tj.var_write %x, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
    tj.assert %p, "InvalidArgumentError: p must hold" : tensor<i1>
    %pure_if = tj.if %p : tensor<i1> -> tensor<3xf32> {
      tj.yield %x : tensor<3xf32>
    } else {
      %n = tj.neg %x : tensor<3xf32>
      tj.yield %n : tensor<3xf32>
    }
    tj.if %p : tensor<i1> {
      tj.print {pieces = ["taken\n"]}
      tj.yield
    } else {
      tj.yield
    }
    func.return
  }
}

// CHECK:      func.func @f(
// CHECK-NEXT:   tj.print %{{.*}} {pieces = ["", "\0A"]}
// CHECK-NEXT:   tj.var_write
// CHECK-NEXT:   tj.assert %{{.*}}, "InvalidArgumentError: p must hold"
// CHECK-NEXT:   tj.if %{{.*}} : tensor<i1> {
// CHECK-NEXT:     tj.print {pieces = ["taken\0A"]}
// CHECK:        func.return
// CHECK-NOT:  tj.exp
// CHECK-NOT:  tj.var_read
// CHECK-NOT:  tj.neg
