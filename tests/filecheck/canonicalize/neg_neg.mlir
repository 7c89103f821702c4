// canonicalize: -(-x) -> x (exact for floats, and for ints -(-INT_MIN) wraps back to
// INT_MIN). A single negation stays.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @f(%x: tensor<3xf32>, %y: tensor<3xi8>)
  // CHECK-NEXT:    %[[N:.*]] = tj.neg %y : tensor<3xi8>
  // CHECK-NEXT:    func.return %x, %[[N]] : tensor<3xf32>, tensor<3xi8>
  func.func @f(%x: tensor<3xf32>, %y: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi8>) {
    %a = tj.neg %x : tensor<3xf32>
    %b = tj.neg %a : tensor<3xf32>
    %c = tj.neg %y : tensor<3xi8>
    func.return %b, %c : tensor<3xf32>, tensor<3xi8>
  }
}
