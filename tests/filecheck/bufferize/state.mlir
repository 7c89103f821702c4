// bufferize: a Variable handle is the Variable's buffer (written in place, read by
// copying); tj.print becomes a call of a run-time callback whose status is checked.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xui8>, %v: !tj.var<tensor<3xui8>>) {
    %r = tj.var_read %v : !tj.var<tensor<3xui8>> -> tensor<3xui8>
    %s = tj.add %r, %x : tensor<3xui8>
    tj.var_write %s, %v : tensor<3xui8>, !tj.var<tensor<3xui8>>
    tj.print %s {pieces = ["s = ", "\n"]} : tensor<3xui8>
    func.return
  }
}

// CHECK:      func.func private @__tj_callback_0(memref<3xi8>) -> i32 attributes {tj.print = ["s = ", "\0A"], tj.arg_dtypes = ["uint8"]}
// CHECK-NEXT: func.func @f(%[[X:.*]]: memref<3xi8>, %[[V:.*]]: memref<3xi8>) {
// CHECK-NEXT:   %[[R:.*]] = memref.alloca() alignment = 64 : memref<3xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[V]] : memref<3xi8>) outs(%[[R]] : memref<3xi8>)
// CHECK:        %[[S:.*]] = memref.alloca() alignment = 64 : memref<3xi8>
// CHECK-NEXT:   linalg.generic {{.*}} ins(%[[R]], %[[X]] : memref<3xi8>, memref<3xi8>) outs(%[[S]] : memref<3xi8>)
// CHECK:        linalg.generic {{.*}} ins(%[[S]] : memref<3xi8>) outs(%[[V]] : memref<3xi8>)
// CHECK:        %[[STATUS:.*]] = func.call @__tj_callback_0(%[[S]]) : (memref<3xi8>) -> i32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %[[ZERO]] : i32
// CHECK-NEXT:   cf.assert %[[OK]], "CallbackError: __tj_callback_0"
// CHECK-NEXT:   func.return
