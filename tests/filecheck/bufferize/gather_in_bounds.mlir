// bufferize of `tj.gather`: a checked one wraps each negative index and asserts its bounds;
// one marked in_bounds (x[mask] gathers the positions of the mask's true elements, whose
// shape the frontend checked against x's) reads each index as it is: no wrap, no check.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<6xf32>, %m: tensor<6xi1>, %i: tensor<3xi32>) -> (tensor<?xf32>, tensor<3xf32>) {
    %c = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %zero = tj.constant dense<0> : tensor<i64>
    %flat = tj.gather %c[%zero], axis = 1, "IndexError: column (f.py:1)" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %s = tj.gather %x[%flat], axis = 0, "IndexError: boolean index (f.py:2)" in_bounds : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %t = tj.gather %x[%i], axis = 0, "IndexError: index out of bounds (f.py:3)" in_bounds : (tensor<6xf32>, tensor<3xi32>) -> tensor<3xf32>
    func.return %s, %t : tensor<?xf32>, tensor<3xf32>
  }
}

// CHECK:      cf.assert %{{.*}}, "IndexError: column (f.py:1)"
// CHECK:      ^{{.*}}(%[[P:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:   %[[PI:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK-NEXT:   %[[V:.*]] = memref.load %{{.*}}[%[[PI]]] : memref<6xf32>
// CHECK-NEXT:   linalg.yield %[[V]] : f32
// CHECK:      ^{{.*}}(%[[Q:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:   %[[Q64:.*]] = arith.extsi %[[Q]] : i32 to i64
// CHECK-NEXT:   %[[QI:.*]] = arith.index_cast %[[Q64]] : i64 to index
// CHECK-NEXT:   memref.load %{{.*}}[%[[QI]]] : memref<6xf32>
// CHECK-NOT:  "IndexError: boolean index
// CHECK-NOT:  "IndexError: index out of bounds
