// bufferize of `out = np.empty_like(x); out[0] = x[0]; for i in range(1, n): out[i] = ...;
// return out`: the returned loop result's initial value (%u) and the constant it updates
// (%z) have one user each, so both are computed in the function's output (the zeros filled
// into it, x[0] stored into it) and the loop runs on it: no temporary, no copy into the
// output when the loop starts (passes/bufferize/output_chains.py). When the initial value
// is also returned (@also_returned), it has its own output and the loop starts from a copy.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

// CHECK:      func.func @scan(%[[X:.*]]: memref<64xf64>, %[[OUT:.*]]: memref<64xf64>)
// CHECK-NOT:  memref.alloc(
// CHECK:      outs(%[[OUT]] : memref<64xf64>)
// CHECK-NEXT: ^bb{{.*}}(%{{.*}}: f64):
// CHECK-NEXT:   arith.constant 0.000000e+00 : f64
// CHECK:      memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<64xf64>
// CHECK-NOT:  ins(%{{.*}} : memref<64xf64>) outs(%[[OUT]]
// CHECK:      scf.while
// CHECK:      memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<64xf64>
// CHECK-NOT:  memref.alloc(
// CHECK:      func.return

// CHECK:      func.func @also_returned(%{{.*}}: memref<64xf64>, %[[R:.*]]: memref<64xf64>, %[[U:.*]]: memref<64xf64>)
// CHECK:      outs(%[[U]] : memref<64xf64>)
// CHECK:      memref.store %{{.*}}, %[[U]][%{{.*}}] : memref<64xf64>
// CHECK:      ins(%[[U]] : memref<64xf64>) outs(%[[R]] : memref<64xf64>)
// CHECK:      scf.while

builtin.module {
  func.func @scan(%x: tensor<64xf64>) -> tensor<64xf64> {
    %z = tj.constant dense<0.0> : tensor<64xf64>
    %x0 = tj.slice %x, start = [0], step = [1] : tensor<64xf64> to tensor<1xf64>
    %u = tj.insert_slice %x0 into %z, start = [0], step = [1] : tensor<1xf64> into tensor<64xf64>
    %one = tj.constant dense<1> : tensor<i64>
    %n = tj.constant dense<64> : tensor<i64>
    %i_end, %r = tj.while %one, %u : (tensor<i64>, tensor<64xf64>) -> (tensor<i64>, tensor<64xf64>) {
    ^bb0(%i: tensor<i64>, %a: tensor<64xf64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %a: tensor<64xf64>):
      %k = tj.to_index %i, size = 64, "IndexError: index out of bounds" : tensor<i64>
      %v = tj.slice %x, start = [-9223372036854775808], step = [1] starts(%k) : tensor<64xf64> to tensor<1xf64>
      %w = tj.insert_slice %v into %a, start = [-9223372036854775808], step = [1] starts(%k) : tensor<1xf64> into tensor<64xf64>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %w : tensor<i64>, tensor<64xf64>
    }
    func.return %r : tensor<64xf64>
  }

  func.func @also_returned(%x: tensor<64xf64>) -> (tensor<64xf64>, tensor<64xf64>) {
    %z = tj.constant dense<0.0> : tensor<64xf64>
    %x0 = tj.slice %x, start = [0], step = [1] : tensor<64xf64> to tensor<1xf64>
    %u = tj.insert_slice %x0 into %z, start = [0], step = [1] : tensor<1xf64> into tensor<64xf64>
    %one = tj.constant dense<1> : tensor<i64>
    %n = tj.constant dense<64> : tensor<i64>
    %i_end, %r = tj.while %one, %u : (tensor<i64>, tensor<64xf64>) -> (tensor<i64>, tensor<64xf64>) {
    ^bb0(%i: tensor<i64>, %a: tensor<64xf64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %a: tensor<64xf64>):
      %k = tj.to_index %i, size = 64, "IndexError: index out of bounds" : tensor<i64>
      %v = tj.slice %x, start = [-9223372036854775808], step = [1] starts(%k) : tensor<64xf64> to tensor<1xf64>
      %w = tj.insert_slice %v into %a, start = [-9223372036854775808], step = [1] starts(%k) : tensor<1xf64> into tensor<64xf64>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %w : tensor<i64>, tensor<64xf64>
    }
    func.return %r, %u : tensor<64xf64>, tensor<64xf64>
  }
}
