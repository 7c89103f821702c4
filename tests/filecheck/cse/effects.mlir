// cse respects side effects: identical prints and Variable writes are never merged;
// two reads of a Variable are merged only when no write lies between them; identical
// pure ops are merged.
// RUN: tracejit-opt %s -p cse | filecheck %s

builtin.module {
  func.func @f(%x: tensor<3xf32>, %v: !tj.var<tensor<3xf32>>) -> tensor<3xf32> {
    %a = tj.exp %x : tensor<3xf32>
    %b = tj.exp %x : tensor<3xf32>
    %r1 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    %r2 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    tj.print %a {pieces = ["", "\n"]} : tensor<3xf32>
    tj.print %b {pieces = ["", "\n"]} : tensor<3xf32>
    tj.var_write %r1, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
    tj.var_write %r2, %v : tensor<3xf32>, !tj.var<tensor<3xf32>>
    %r3 = tj.var_read %v : !tj.var<tensor<3xf32>> -> tensor<3xf32>
    %s = tj.add %r3, %r2 : tensor<3xf32>
    func.return %s : tensor<3xf32>
  }
}

// CHECK:      %[[A:.*]] = tj.exp %{{.*}} : tensor<3xf32>
// CHECK-NEXT: %[[R1:.*]] = tj.var_read
// CHECK-NEXT: tj.print %[[A]]
// CHECK-NEXT: tj.print %[[A]]
// CHECK-NEXT: tj.var_write %[[R1]]
// CHECK-NEXT: tj.var_write %[[R1]]
// CHECK-NEXT: %[[R3:.*]] = tj.var_read
// CHECK-NEXT: tj.add %[[R3]], %[[R1]]
