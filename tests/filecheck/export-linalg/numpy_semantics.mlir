// export-linalg keeps NumPy's meaning: integer floor division rounds down (not C's
// truncation), unsigned ints become signless with unsigned ops, an integer power is
// square-and-multiply (upstream CPU pipelines cannot lower math.ipowi on vectors).
// RUN: tracejit-opt %s -p export-linalg | filecheck %s

builtin.module {
  func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>, %u: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xui8>, tensor<4xi32>) {
    %q = tj.floor_divide %a, %b : tensor<4xi32>
    %m = tj.maximum %u, %u : tensor<4xui8>
    %p = tj.pow %a, %b : tensor<4xi32>
    func.return %q, %m, %p : tensor<4xi32>, tensor<4xui8>, tensor<4xi32>
  }
}

// CHECK:      func.func @f(%{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xi8>, tensor<4xi32>)
// CHECK:        arith.floordivsi
// CHECK:        arith.maxui
// CHECK-NOT:    math.ipowi
// CHECK:        arith.shrui
// CHECK:        func.return
