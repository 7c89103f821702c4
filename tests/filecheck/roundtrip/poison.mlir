// tj.poison (the pending error of a failed op while tracing; frontend/staging/non_strict.py)
// prints, parses back and prints the same text; dce removes an unused one, like any pure
// op. A message that does not name an error type is rejected (invalid_ops.mlir).
// RUN: tracejit-opt %s | tracejit-opt | filecheck %s
// RUN: tracejit-opt %s -p dce | filecheck %s --check-prefix=DCE

builtin.module {
  func.func @f(%x: tensor<1xf32>, %n: index) -> tensor<1xf32> {
    %p = tj.poison "IndexError: index 1 is out of bounds for axis 0 with size 1 (f.py:4)" : tensor<1xf32>
    %i = tj.poison "ValueError: Integers to negative integer powers are not allowed." : tensor<2x3xi64>
    %d = tj.poison "InvalidArgumentError: dynamic" : tensor<?x1xf32>
    %s = tj.add %p, %x : tensor<1xf32>
    func.return %x : tensor<1xf32>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: tensor<1xf32>, %{{.*}}: index) -> tensor<1xf32> {
// CHECK-NEXT:   %[[P:.*]] = tj.poison "IndexError: index 1 is out of bounds for axis 0 with size 1 (f.py:4)" : tensor<1xf32>
// CHECK-NEXT:   %{{.*}} = tj.poison "ValueError: Integers to negative integer powers are not allowed." : tensor<2x3xi64>
// CHECK-NEXT:   %{{.*}} = tj.poison "InvalidArgumentError: dynamic" : tensor<?x1xf32>
// CHECK-NEXT:   %{{.*}} = tj.add %[[P]], %[[X]] : tensor<1xf32>
// CHECK-NEXT:   func.return %[[X]] : tensor<1xf32>

// DCE:      func.func @f(
// DCE-NEXT:   func.return
// DCE-NOT:  tj.poison
