// The state and effect ops print, parse back and print the same text.
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf32>, %v: !tj.var<tensor<3xf32>>) -> tensor<3xf32> {
    %r = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    %s = tj.add %r, %x : tensor<3xf32>
    tj.var_write %s, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
    tj.print %x, %s {pieces = ["x = ", ", s = ", "\n"]} : tensor<3xf32>, tensor<3xf32>
    tj.print {pieces = ["done\n"]}
    %p = tj.py_call %x {callback = "py_function_0"} : (tensor<3xf32>) -> tensor<3xf32>
    func.return %p : tensor<3xf32>
  }
}

// CHECK:      func.func @f(%{{.*}}: tensor<3xf32>, %[[V:.*]]: !tj.var<tensor<3xf32>>) -> tensor<3xf32> {
// CHECK-NEXT:   %{{.*}} = tj.var_read %[[V]] : !tj.var<tensor<3xf32>> -> tensor<3xf32>
// CHECK-NEXT:   %{{.*}} = tj.add
// CHECK-NEXT:   tj.var_write %{{.*}}, %[[V]] : tensor<3xf32>, !tj.var<tensor<3xf32>>
// CHECK-NEXT:   tj.print %{{.*}}, %{{.*}} {pieces = ["x = ", ", s = ", "\0A"]} : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:   tj.print {pieces = ["done\0A"]}
// CHECK-NEXT:   %{{.*}} = tj.py_call %{{.*}} {callback = "py_function_0"} : (tensor<3xf32>) -> tensor<3xf32>
