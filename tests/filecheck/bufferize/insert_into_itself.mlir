// bufferize of `w[:] = a` in a loop, `w` a reversed view of `a` (the fuzzer's finding):
// the loop's state is both the destination and the source of tj.insert_slice. Its buffer is
// the loop's to overwrite, but storing into it in place would overwrite elements the copy
// has yet to read (NumPy reads all of `a` first), so the update goes into a new buffer.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%a: tensor<5xf64>, %n: tensor<i64>) -> tensor<5xf64> {
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %i_end, %w = tj.while %zero, %a : (tensor<i64>, tensor<5xf64>) -> (tensor<i64>, tensor<5xf64>) {
    ^bb0(%i: tensor<i64>, %w0: tensor<5xf64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %w1: tensor<5xf64>):
      %w2 = tj.insert_slice %w1 into %w1, start = [4], step = [-1] : tensor<5xf64> into tensor<5xf64>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %w2 : tensor<i64>, tensor<5xf64>
    }
    func.return %w : tensor<5xf64>
  }
}

// CHECK:      scf.while
// CHECK:      } do {
// CHECK:      %[[COPY:.*]] = memref.alloca() {{.*}}: memref<5xf64>
// CHECK:      linalg.generic {{.*}} ins(%[[STATE:.*]] : memref<5xf64>) outs(%[[COPY]] : memref<5xf64>)
// CHECK:      scf.for
// CHECK:      %[[X:.*]] = memref.load %[[STATE]][%{{.*}}]
// CHECK-NEXT: memref.store %[[X]], %[[COPY]][%{{.*}}]
