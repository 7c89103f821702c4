// A staged loop whose body takes np.dot(x[:i], y[:i]) (a 1-D @ 1-D tj.matmul of two slices
// of run-time count %count). At the loops stage the body has no heap allocation and no
// copy: one loop reads x and y in place, bounded by a data-less buffer (`i0` elements)
// of the count's shape.
// RUN: tracejit-opt %s --emit loops | filecheck %s

builtin.module {
  func.func @dots(%x: tensor<20xf64>, %y: tensor<20xf64>) -> tensor<20xf64> {
    %zeros = tj.constant dense<0.000000e+00> : tensor<20xf64>
    %first = tj.constant dense<0> : tensor<i64>
    %end, %out = tj.while %first, %zeros : (tensor<i64>, tensor<20xf64>) -> (tensor<i64>, tensor<20xf64>) {
    ^bb0(%i: tensor<i64>, %acc: tensor<20xf64>):
      %n = tj.constant dense<20> : tensor<i64>
      %go = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %go : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %acc: tensor<20xf64>):
      %scalar = tensor.extract %i[] : tensor<i64>
      %count = arith.index_cast %scalar : i64 to index
      %xs = tj.slice %x, start = [0], step = [1] sizes(%count) : tensor<20xf64> to tensor<?xf64>
      %ys = tj.slice %y, start = [0], step = [1] sizes(%count) : tensor<20xf64> to tensor<?xf64>
      %dot = tj.matmul %xs, %ys : (tensor<?xf64>, tensor<?xf64>) -> tensor<f64>
      %at = tj.to_index %i, size = 20, "IndexError: index out of bounds" : tensor<i64>
      %item = tj.reshape %dot : tensor<f64> to tensor<1xf64>
      %new = tj.insert_slice %item into %acc, start = [-9223372036854775808], step = [1] starts(%at) : tensor<1xf64> into tensor<20xf64>
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.add %i, %one : tensor<i64>
      tj.yield %next, %new : tensor<i64>, tensor<20xf64>
    }
    func.return %out : tensor<20xf64>
  }
}

// CHECK-LABEL: func.func @dots
// CHECK-SAME:    (%[[X:.*]]: memref<20xf64>, %[[Y:.*]]: memref<20xf64>, %{{.*}}: memref<20xf64>)
// CHECK:         scf.while
// CHECK:         } do {
// CHECK-NOT:       memref.alloc(
// CHECK:           %[[COUNT:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NOT:       memref.alloc(
// CHECK:           %[[NONE:.*]] = memref.alloca() alignment = 64 : memref<0xi8>
// CHECK:           %[[E:.*]] = memref.view %[[NONE]][%{{.*}}][%[[COUNT]]] : memref<0xi8> to memref<?xi0>
// CHECK:           %[[N:.*]] = memref.dim %[[E]], %{{.*}} : memref<?xi0>
// CHECK:           %{{.*}} = scf.for %blk = %{{.*}} to %[[N]] step %{{.*}} iter_args(%acc = %{{.*}}) -> (f64) {
// CHECK:             %{{.*}} = scf.for %[[K:.*]] = %blk to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[X]][%[[K]]] : memref<20xf64>
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[Y]][%[[K]]] : memref<20xf64>
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f64
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc> : f64
// CHECK-NEXT:        scf.yield %[[S]] : f64
// CHECK-NEXT:      }
// CHECK-NOT:       memref.alloc(
// CHECK-NOT:       memref.dealloc
// CHECK:           scf.yield
// CHECK-NEXT:      }
// CHECK:           scf.condition
// CHECK-NOT:       memref.alloc(
// CHECK:         func.return
