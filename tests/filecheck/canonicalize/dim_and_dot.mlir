// canonicalize: tj.dim of a value whose op states the size reads that size (a slice's or
// reshape's `sizes` operand, a broadcast's new dim, the operand's dim through a transpose,
// a broadcast of a `?` dim or an element-wise op; a static dim is a constant), so that
// nothing but the kernel reads the slice. A 1-D @ 1-D matmul is a sum of products.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @dims(%x: tensor<20x20xf64>, %i: index, %n: index)
  // CHECK-NEXT:    %[[T:.*]] = arith.constant 1 : index
  // CHECK-NEXT:    func.return %i, %n, %[[T]], %i, %n, %i, %i
  func.func @dims(%x: tensor<20x20xf64>, %i: index, %n: index) -> (index, index, index, index, index, index, index) {
    %s = tj.slice %x, start = [3, 0], step = [1, 1] sizes(%i) : tensor<20x20xf64> to tensor<1x?xf64>
    %r = tj.reshape %s sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
    %b = tj.broadcast_in_dim %r, dims = [1] sizes(%i) : tensor<?xf64> to tensor<?x?xf64>
    %t = tj.transpose %b, permutation = [1, 0] : tensor<?x?xf64> to tensor<?x?xf64>
    %e = tj.neg %s : tensor<1x?xf64>
    %d0 = tj.dim %s, 1 : tensor<1x?xf64>
    %d1 = tj.dim %r, 0 : tensor<?xf64>
    %d2 = tj.dim %s, 0 : tensor<1x?xf64>
    %d3 = tj.dim %b, 0 : tensor<?x?xf64>
    %d4 = tj.dim %b, 1 : tensor<?x?xf64>
    %d5 = tj.dim %t, 1 : tensor<?x?xf64>
    %d6 = tj.dim %e, 1 : tensor<1x?xf64>
    func.return %d0, %d1, %d2, %d3, %d4, %d5, %d6 : index, index, index, index, index, index, index
  }

  // A `tj.dim` of a value no op sizes (an argument) stays.
  // CHECK-LABEL: func.func @argument(%x: tensor<?xf64>)
  // CHECK-NEXT:    %[[D:.*]] = tj.dim %x, 0 : tensor<?xf64>
  // CHECK-NEXT:    func.return %[[D]]
  func.func @argument(%x: tensor<?xf64>) -> index {
    %d = tj.dim %x, 0 : tensor<?xf64>
    func.return %d : index
  }

  // CHECK-LABEL: func.func @dot(%x: tensor<?xf64>, %y: tensor<?xf64>, %u: tensor<4xi32>, %v: tensor<4xi32>)
  // CHECK-NEXT:    %[[P:.*]] = tj.mul %x, %y : tensor<?xf64>
  // CHECK-NEXT:    %[[S:.*]] = tj.reduce "sum" %[[P]], axes = [0] : tensor<?xf64> to tensor<f64>
  // CHECK-NEXT:    %[[Q:.*]] = tj.mul %u, %v : tensor<4xi32>
  // CHECK-NEXT:    %[[T:.*]] = tj.reduce "sum" %[[Q]], axes = [0] : tensor<4xi32> to tensor<i32>
  // CHECK-NEXT:    func.return %[[S]], %[[T]]
  func.func @dot(%x: tensor<?xf64>, %y: tensor<?xf64>, %u: tensor<4xi32>, %v: tensor<4xi32>) -> (tensor<f64>, tensor<i32>) {
    %d = tj.matmul %x, %y : (tensor<?xf64>, tensor<?xf64>) -> tensor<f64>
    %e = tj.matmul %u, %v : (tensor<4xi32>, tensor<4xi32>) -> tensor<i32>
    func.return %d, %e : tensor<f64>, tensor<i32>
  }

  // Not for bool (any of ands), float16 (summed in float32), a matrix, or two vector types.
  // CHECK-LABEL: func.func @not_dots
  // CHECK-COUNT-4: tj.matmul
  // CHECK-NOT:     tj.reduce
  func.func @not_dots(%b: tensor<3xi1>, %h: tensor<3xf16>, %m: tensor<3x3xf64>, %x: tensor<3xf64>, %y: tensor<?xf64>) -> (tensor<i1>, tensor<f16>, tensor<3xf64>, tensor<f64>) {
    %0 = tj.matmul %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<i1>
    %1 = tj.matmul %h, %h : (tensor<3xf16>, tensor<3xf16>) -> tensor<f16>
    %2 = tj.matmul %m, %x : (tensor<3x3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %3 = tj.matmul %x, %y : (tensor<3xf64>, tensor<?xf64>) -> tensor<f64>
    func.return %0, %1, %2, %3 : tensor<i1>, tensor<f16>, tensor<3xf64>, tensor<f64>
  }
}
