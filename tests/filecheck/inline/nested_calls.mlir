// inline: calls between the module's functions are replaced by the callee's body
// (transitively), and private callees left without callers are erased.
// RUN: tracejit-opt %s -p inline | filecheck %s

builtin.module {
  func.func private @square(%a: tensor<4xf32>) -> tensor<4xf32> {
    %s = tj.mul %a, %a : tensor<4xf32>
    func.return %s : tensor<4xf32>
  }
  func.func private @square_plus(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %s = func.call @square(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %r = tj.add %s, %b : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %t = func.call @square_plus(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %u = func.call @square(%t) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %u : tensor<4xf32>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @main(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:     %[[S:.*]] = tj.mul %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT:     %[[T:.*]] = tj.add %[[S]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT:     %[[U:.*]] = tj.mul %[[T]], %[[T]] : tensor<4xf32>
// CHECK-NEXT:     func.return %[[U]] : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  func.call
