// cse merges a checked op (tj.gather, tj.to_index, tj.scatter) with an identical one but
// for its message that dominates it: the second takes the first's value and message (the
// line NumPy fails at first), and the gathers that then read the same value merge too. A
// gather before a branch dominates the same gather in it; a gather in a branch does not
// dominate the one after the branch, which keeps its own message; a gather along another
// axis is another op.
// RUN: tracejit-opt %s -p cse | filecheck %s

builtin.module {
  func.func @f(%x: tensor<5xf32>, %m: tensor<5x2xf32>, %i: tensor<3xi64>, %p: tensor<i1>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<5x3xf32>) {
    %a = tj.gather %x[%i], axis = 0, "IndexError: index out of bounds (f.py:3)" : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
    %b = tj.gather %x[%i], axis = 0, "IndexError: index out of bounds (f.py:4)" : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
    %ia = tj.cast %a : tensor<3xf32> to tensor<3xi64>
    %ib = tj.cast %b : tensor<3xf32> to tensor<3xi64>
    %c = tj.gather %x[%ia], axis = 0, "IndexError: index out of bounds (f.py:5)" : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
    %d = tj.gather %x[%ib], axis = 0, "IndexError: index out of bounds (f.py:6)" : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
    %e, %h = tj.if %p : tensor<i1> -> tensor<3xf32>, tensor<3x2xf32> {
      %g = tj.gather %x[%ia], axis = 0, "IndexError: index out of bounds (f.py:8)" : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
      %hin = tj.gather %m[%i], axis = 0, "IndexError: index out of bounds (f.py:9)" : (tensor<5x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
      tj.yield %g, %hin : tensor<3xf32>, tensor<3x2xf32>
    } else {
      %z = tj.constant dense<0.0> : tensor<3x2xf32>
      tj.yield %a, %z : tensor<3xf32>, tensor<3x2xf32>
    }
    %hout = tj.gather %m[%i], axis = 0, "IndexError: index out of bounds (f.py:13)" : (tensor<5x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
    %t = tj.gather %m[%i], axis = 1, "IndexError: index out of bounds (f.py:14)" : (tensor<5x2xf32>, tensor<3xi64>) -> tensor<5x3xf32>
    %r = tj.add %c, %e : tensor<3xf32>
    func.return %b, %d, %r, %h, %hout, %t : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<5x3xf32>
  }
}

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %[[A:.*]] = tj.gather %x[%i], axis = 0, "IndexError: index out of bounds (f.py:3)"
// CHECK-NEXT:    %[[IA:.*]] = tj.cast %[[A]]
// CHECK-NEXT:    %[[C:.*]] = tj.gather %x[%[[IA]]], axis = 0, "IndexError: index out of bounds (f.py:5)"
// CHECK-NEXT:    %[[E:.*]], %[[H:.*]] = tj.if %p
// CHECK-NEXT:      %[[HIN:.*]] = tj.gather %m[%i], axis = 0, "IndexError: index out of bounds (f.py:9)"
// CHECK-NEXT:      tj.yield %[[C]], %[[HIN]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = tj.constant
// CHECK-NEXT:      tj.yield %[[A]], %[[Z]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[HOUT:.*]] = tj.gather %m[%i], axis = 0, "IndexError: index out of bounds (f.py:13)"
// CHECK-NEXT:    %[[T:.*]] = tj.gather %m[%i], axis = 1, "IndexError: index out of bounds (f.py:14)"
// CHECK-NEXT:    %[[R:.*]] = tj.add %[[C]], %[[E]]
// CHECK-NEXT:    func.return %[[A]], %[[C]], %[[R]], %[[H]], %[[HOUT]], %[[T]]
