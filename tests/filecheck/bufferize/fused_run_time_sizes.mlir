// bufferize: a tj.fused kernel with run-time sizes. Its `index` inputs are the values
// they stand for: a slice's run-time start is added to the position it loads, a chain of
// views (a row slice read through a reshape, a reversed slice of a slice) loads the array
// at the position the chain gives. The row dot product walks no operand (both factors are
// loads, the output a scalar), so its loop is bounded by a buffer of the domain's shape
// with no data (zero-bit `i0` elements, viewed into an empty stack buffer); a
// `?` result is allocated with the size the kernel finds (here the slice's count), and
// a `?` input gives its loop's trip count itself (no such buffer, no memref.dim).
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @row_dot(%a: tensor<20x20xf64>, %it: tensor<i64>) -> tensor<f64> {
    %s = tensor.extract %it[] : tensor<i64>
    %i = arith.index_cast %s : i64 to index
    %d = tj.fused %a, %i : (tensor<20x20xf64>, index) -> tensor<f64> {
    ^bb0(%x: tensor<20x20xf64>, %n: index):
      %r = tj.slice %x, start = [-9223372036854775808, 0], step = [1, 1] starts(%n) sizes(%n) : tensor<20x20xf64> to tensor<1x?xf64>
      %rv = tj.reshape %r sizes(%n) : tensor<1x?xf64> to tensor<?xf64>
      %p = tj.mul %rv, %rv : tensor<?xf64>
      %sum = tj.reduce "sum" %p, axes = [0] : tensor<?xf64> to tensor<f64>
      tj.yield %sum : tensor<f64>
    }
    func.return %d : tensor<f64>
  }
  func.func @flip(%y: tensor<12xf64>, %kt: tensor<i64>) -> tensor<12xf64> {
    %s = tensor.extract %kt[] : tensor<i64>
    %k = arith.index_cast %s : i64 to index
    %c1 = arith.constant 1 : index
    %last = arith.subi %k, %c1 : index
    %r = tj.fused %y, %k, %last : (tensor<12xf64>, index, index) -> tensor<?xf64> {
    ^bb0(%x: tensor<12xf64>, %n: index, %l: index):
      %head = tj.slice %x, start = [0], step = [1] sizes(%n) : tensor<12xf64> to tensor<?xf64>
      %flip = tj.slice %head, start = [-9223372036854775808], step = [-1] starts(%l) sizes(%n) : tensor<?xf64> to tensor<?xf64>
      %sum = tj.add %head, %flip : tensor<?xf64>
      tj.yield %sum : tensor<?xf64>
    }
    %new = tj.insert_slice %r into %y, start = [0], step = [1] : tensor<?xf64> into tensor<12xf64>
    func.return %new : tensor<12xf64>
  }
  func.func @unknown_input(%x: tensor<?x3xf64>) -> tensor<3xf64> {
    %r = tj.fused %x : (tensor<?x3xf64>) -> tensor<3xf64> {
    ^bb0(%a: tensor<?x3xf64>):
      %e = tj.exp %a : tensor<?x3xf64>
      %sum = tj.reduce "sum" %e, axes = [0] : tensor<?x3xf64> to tensor<3xf64>
      tj.yield %sum : tensor<3xf64>
    }
    func.return %r : tensor<3xf64>
  }
}

// CHECK-LABEL: func.func @row_dot
// CHECK-SAME:    (%[[A:.*]]: memref<20x20xf64>, %{{.*}}: memref<i64>, %[[OUT:.*]]: memref<f64>)
// CHECK:         %[[I:.*]] = arith.index_cast
// CHECK:         %[[NONE:.*]] = memref.alloca() alignment = 64 : memref<0xi8>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.*]] = memref.view %[[NONE]][%[[Z]]][%[[I]]] : memref<0xi8> to memref<?xi0>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[E]] : memref<?xi0>) outs(%[[OUT]] : memref<f64>) {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i0, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.addi %[[ZERO]], %[[I]] : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[A]][%[[ROW]], %[[K]]] : memref<20x20xf64>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[V]], %[[V]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc> : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64

// CHECK-LABEL: func.func @flip
// CHECK-SAME:    (%[[Y:.*]]: memref<12xf64>, %{{.*}}: memref<i64>, %{{.*}}: memref<12xf64>)
// CHECK:         %[[K:.*]] = arith.index_cast
// CHECK:         %[[LAST:.*]] = arith.subi %[[K]]
// CHECK-NEXT:    %[[T:.*]] = memref.alloc(%[[K]]) : memref<?xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[T]] : memref<?xf64>) {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f64):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[H:.*]] = memref.load %[[Y]][%[[I]]] : memref<12xf64>
// CHECK-NEXT:      %[[J:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[MINUS:.*]] = arith.constant -1 : index
// CHECK-NEXT:      %[[NJ:.*]] = arith.muli %[[J]], %[[MINUS]] : index
// CHECK-NEXT:      %[[BACK:.*]] = arith.addi %[[NJ]], %[[LAST]] : index
// CHECK-NEXT:      %[[F:.*]] = memref.load %[[Y]][%[[BACK]]] : memref<12xf64>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[H]], %[[F]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64

// CHECK-LABEL: func.func @unknown_input
// CHECK-SAME:    (%[[X:.*]]: memref<?x3xf64>, %[[OUT:.*]]: memref<3xf64>)
// CHECK-NOT:     memref.view
// CHECK-NOT:     memref.dim
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : memref<?x3xf64>) outs(%[[OUT]] : memref<3xf64>)
