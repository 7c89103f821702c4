// bufferize of a loop whose body gathers through a slice of run-time count (a CSR row:
// `x[indices[lo:hi]]`): the gather's result has the count as its size, at most the
// indices' static dim (300), so it is a memref.view of the count into a scratch buffer of
// that bound allocated once at the function's entry (300 f64: 2400 bytes), as the slice
// it reads is (300 i64). Before, the gather's result was a heap block of the count
// allocated and freed on every trip: 3x slower than numba on a 100-row CSR product.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

// CHECK:      func.func @rows(
// CHECK-DAG:    %[[GATHERED:.*]] = memref.alloc() : memref<2400xi8>
// CHECK-DAG:    %[[COLUMNS:.*]] = memref.alloc() : memref<2400xi8>
// CHECK:        scf.while
// CHECK:        } do {
// CHECK-NOT:      memref.alloc(
// CHECK:          memref.view %{{.*}}[%{{.*}}][%[[COUNT:.*]]] : memref<2400xi8> to memref<?xi64>
// CHECK:          memref.view %{{.*}}[%{{.*}}][%{{.*}}] : memref<2400xi8> to memref<?xf64>
// CHECK:          cf.assert %{{.*}}, "IndexError: index out of bounds"
// CHECK-NOT:      memref.alloc(
// CHECK-NOT:      memref.dealloc
// CHECK:          scf.yield
// CHECK-DAG:    memref.dealloc %[[GATHERED]] : memref<2400xi8>
// CHECK-DAG:    memref.dealloc %[[COLUMNS]] : memref<2400xi8>
// CHECK:        func.return

builtin.module {
  func.func @rows(%x: tensor<50xf64>, %indices: tensor<300xi64>, %n: tensor<i64>) -> tensor<f64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %s0 = tj.constant dense<0.0> : tensor<f64>
    %end, %total = tj.while %zero, %s0 : (tensor<i64>, tensor<f64>) -> (tensor<i64>, tensor<f64>) {
    ^bb0(%i: tensor<i64>, %s: tensor<f64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %s: tensor<f64>):
      %raw = tensor.extract %i[] : tensor<i64>
      %count = arith.index_cast %raw : i64 to index
      %columns = tj.slice %indices, start = [0], step = [1] sizes(%count) : tensor<300xi64> to tensor<?xi64>
      %gathered = tj.gather %x[%columns], axis = 0, "IndexError: index out of bounds" : (tensor<50xf64>, tensor<?xi64>) -> tensor<?xf64>
      %row = tj.reduce "sum" %gathered, axes = [0] : tensor<?xf64> to tensor<f64>
      %s2 = tj.add %s, %row : tensor<f64>
      %next = tj.add %i, %one : tensor<i64>
      tj.yield %next, %s2 : tensor<i64>, tensor<f64>
    }
    func.return %total : tensor<f64>
  }
}
