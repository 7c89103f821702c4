// canonicalize: z[m] = z[m] * z[m] + c[m] (positions of m, gathers at them, an element-wise
// expression, a scatter back) becomes the expression on the whole arrays and a select by
// m. Each z[m] of the statement has its own nonzero and gather before CSE: the masks are
// compared by what they compute. A scalar broadcast to the count is broadcast to m's shape.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @update(%z: tensor<6xf32>, %c: tensor<6xf32>, %m: tensor<6xi1>)
  // CHECK-NEXT:    %[[SQ:.*]] = tj.mul %z, %z : tensor<6xf32>
  // CHECK-NEXT:    %[[SUM:.*]] = tj.add %[[SQ]], %c : tensor<6xf32>
  // CHECK-NEXT:    %[[R:.*]] = tj.select %m, %[[SUM]], %z : tensor<6xi1>, tensor<6xf32>
  // CHECK-NEXT:    func.return %[[R]] : tensor<6xf32>
  func.func @update(%z: tensor<6xf32>, %c: tensor<6xf32>, %m: tensor<6xi1>) -> tensor<6xf32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %p1 = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i1 = tj.gather %p1[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %g1 = tj.gather %z[%i1], axis = 0, "IndexError: x" : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %p2 = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i2 = tj.gather %p2[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %g2 = tj.gather %c[%i2], axis = 0, "IndexError: x" : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %sq = tj.mul %g1, %g1 : tensor<?xf32>
    %sum = tj.add %sq, %g2 : tensor<?xf32>
    %p3 = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i3 = tj.gather %p3[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %r = tj.scatter %sum into %z[%i3], "IndexError: x" : tensor<?xf32> into tensor<6xf32>, tensor<?xi64>
    func.return %r : tensor<6xf32>
  }

  // CHECK-LABEL: func.func @scalar_times(%z: tensor<6xi32>, %m: tensor<6xi1>, %s: tensor<i32>)
  // CHECK-NEXT:    %[[B:.*]] = tj.broadcast_in_dim %s, dims = [] : tensor<i32> to tensor<6xi32>
  // CHECK-NEXT:    %[[P:.*]] = tj.floor_divide %z, %[[B]] : tensor<6xi32>
  // CHECK-NEXT:    %[[R:.*]] = tj.select %m, %[[P]], %z : tensor<6xi1>, tensor<6xi32>
  // CHECK-NEXT:    func.return %[[R]] : tensor<6xi32>
  func.func @scalar_times(%z: tensor<6xi32>, %m: tensor<6xi1>, %s: tensor<i32>) -> tensor<6xi32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %p = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i = tj.gather %p[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %n = tj.dim %i, 0 : tensor<?xi64>
    %g = tj.gather %z[%i], axis = 0, "IndexError: x" : (tensor<6xi32>, tensor<?xi64>) -> tensor<?xi32>
    %b = tj.broadcast_in_dim %s, dims = [] sizes(%n) : tensor<i32> to tensor<?xi32>
    %q = tj.floor_divide %g, %b : tensor<?xi32>
    %r = tj.scatter %q into %z[%i], "IndexError: x" : tensor<?xi32> into tensor<6xi32>, tensor<?xi64>
    func.return %r : tensor<6xi32>
  }

  // A 2-d z[m] flattens z, c and m: the expression runs on the 2-d arrays themselves, and
  // the flattened result is a reshape of the select (which folds with a reshape back).
  // CHECK-LABEL: func.func @two_d(%z: tensor<2x3xf32>, %c: tensor<2x3xf32>, %m: tensor<2x3xi1>)
  // CHECK-NEXT:    %[[P:.*]] = tj.mul %z, %c : tensor<2x3xf32>
  // CHECK-NEXT:    %[[S:.*]] = tj.select %m, %[[P]], %z : tensor<2x3xi1>, tensor<2x3xf32>
  // CHECK-NEXT:    func.return %[[S]] : tensor<2x3xf32>
  func.func @two_d(%z: tensor<2x3xf32>, %c: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %zf = tj.reshape %z : tensor<2x3xf32> to tensor<6xf32>
    %mf = tj.reshape %m : tensor<2x3xi1> to tensor<6xi1>
    %p = tj.nonzero %mf : tensor<6xi1> -> tensor<?x1xi64>
    %i = tj.gather %p[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %g = tj.gather %zf[%i], axis = 0, "IndexError: x" : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %cf = tj.reshape %c : tensor<2x3xf32> to tensor<6xf32>
    %h = tj.gather %cf[%i], axis = 0, "IndexError: x" : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %q = tj.mul %g, %h : tensor<?xf32>
    %r = tj.scatter %q into %zf[%i], "IndexError: x" : tensor<?xf32> into tensor<6xf32>, tensor<?xi64>
    %back = tj.reshape %r : tensor<6xf32> to tensor<2x3xf32>
    func.return %back : tensor<2x3xf32>
  }

  // Left alone: the update is not an expression of gathers at m's positions (a tensor of
  // the count from elsewhere), and a mask of another shape than the updated array.
  // CHECK-LABEL: func.func @other_values
  // CHECK:         tj.scatter
  func.func @other_values(%z: tensor<6xf32>, %m: tensor<6xi1>, %v: tensor<?xf32>) -> tensor<6xf32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %p = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i = tj.gather %p[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %r = tj.scatter %v into %z[%i], "IndexError: x" : tensor<?xf32> into tensor<6xf32>, tensor<?xi64>
    func.return %r : tensor<6xf32>
  }
  // CHECK-LABEL: func.func @other_mask
  // CHECK:         tj.scatter
  func.func @other_mask(%z: tensor<6xf32>, %m: tensor<6xi1>, %k: tensor<6xi1>) -> tensor<6xf32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %p = tj.nonzero %m : tensor<6xi1> -> tensor<?x1xi64>
    %i = tj.gather %p[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %q = tj.nonzero %k : tensor<6xi1> -> tensor<?x1xi64>
    %j = tj.gather %q[%zero], axis = 1, "IndexError: x" : (tensor<?x1xi64>, tensor<i64>) -> tensor<?xi64>
    %g = tj.gather %z[%j], axis = 0, "IndexError: x" : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
    %r = tj.scatter %g into %z[%i], "IndexError: x" : tensor<?xf32> into tensor<6xf32>, tensor<?xi64>
    func.return %r : tensor<6xf32>
  }
}
