// bufferize of `if p: (if q: D[i] = v else: D[i] = w)` in a loop over D (Nussinov's
// dynamic program has this shape): the inner `if` yields an update of the outer value
// D, not D itself, and still takes D's buffer (the loop's state), as the outer `if`
// does. Before, the inner `if` got a buffer of its own: each branch copied the whole
// array into it and the outer branch copied it back, three 64-element copies a trip.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<64xf32>, %v: tensor<1xf32>, %w: tensor<1xf32>) -> tensor<64xf32> {
    %zeros = tj.constant dense<0.0> : tensor<64xf32>
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %n = tj.constant dense<64> : tensor<i64>
    %fzero = tj.constant dense<0.0> : tensor<f32>
    %i_end, %d = tj.while %zero, %zeros : (tensor<i64>, tensor<64xf32>) -> (tensor<i64>, tensor<64xf32>) {
    ^bb0(%i: tensor<i64>, %d0: tensor<64xf32>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %d1: tensor<64xf32>):
      %ii = tj.to_index %i, size = 64, "IndexError: index out of bounds for axis 0" : tensor<i64>
      %xi = tj.slice %x, start = [-9223372036854775808], step = [1] starts(%ii) : tensor<64xf32> to tensor<1xf32>
      %s = tj.reshape %xi : tensor<1xf32> to tensor<f32>
      %p = tj.compare "gt" %s, %fzero : tensor<f32> -> tensor<i1>
      %q = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      %d2 = tj.if %p : tensor<i1> -> tensor<64xf32> {
        %d3 = tj.if %q : tensor<i1> -> tensor<64xf32> {
          %d4 = tj.insert_slice %v into %d1, start = [-9223372036854775808], step = [1] starts(%ii) : tensor<1xf32> into tensor<64xf32>
          tj.yield %d4 : tensor<64xf32>
        } else {
          %d5 = tj.insert_slice %w into %d1, start = [-9223372036854775808], step = [1] starts(%ii) : tensor<1xf32> into tensor<64xf32>
          tj.yield %d5 : tensor<64xf32>
        }
        tj.yield %d3 : tensor<64xf32>
      } else {
        tj.yield %d1 : tensor<64xf32>
      }
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %d2 : tensor<i64>, tensor<64xf32>
    }
    func.return %d : tensor<64xf32>
  }
}

// CHECK:      func.func @f(%{{.*}}: memref<64xf32>, %{{.*}}: memref<1xf32>, %{{.*}}: memref<1xf32>, %[[OUT:.*]]: memref<64xf32>)
// CHECK:      scf.while
// CHECK:      } do {
// CHECK-NOT:    {{memref.alloca?\(\).*memref<64xf32>}}
// CHECK-NOT:    linalg.generic {{.*}}memref<64xf32>
// CHECK:        scf.if
// CHECK:          scf.if
// CHECK:            memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<64xf32>
// CHECK:          } else {
// CHECK:            memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<64xf32>
// CHECK:          }
// CHECK-NOT:    {{memref.alloca?\(\).*memref<64xf32>}}
// CHECK-NOT:    linalg.generic {{.*}}memref<64xf32>
// CHECK:        scf.yield
// CHECK:      func.return
