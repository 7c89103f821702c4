// bufferize of D[i, j] = v in a loop nest over a 4x4 array made before it: the inner
// loop's state buffer is the outer loop's (nothing reads the outer value after the inner
// loop), and tj.insert_slice stores into it. No 4x4 buffer is allocated or copied inside
// the loops: one store per iteration. tj.to_index wraps and checks the run-time index.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%v: tensor<1x1xf32>) -> tensor<4x4xf32> {
    %zeros = tj.constant dense<0.0> : tensor<4x4xf32>
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %four = tj.constant dense<4> : tensor<i64>
    %i_end, %d = tj.while %zero, %zeros : (tensor<i64>, tensor<4x4xf32>) -> (tensor<i64>, tensor<4x4xf32>) {
    ^bb0(%i: tensor<i64>, %d0: tensor<4x4xf32>):
      %c = tj.compare "lt" %i, %four : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %d1: tensor<4x4xf32>):
      %j_end, %row = tj.while %zero, %d1 : (tensor<i64>, tensor<4x4xf32>) -> (tensor<i64>, tensor<4x4xf32>) {
      ^bb1(%j: tensor<i64>, %r0: tensor<4x4xf32>):
        %cj = tj.compare "lt" %j, %four : tensor<i64> -> tensor<i1>
        tj.condition %cj : tensor<i1>
      } do {
      ^bb1(%j: tensor<i64>, %r1: tensor<4x4xf32>):
        %ii = tj.to_index %i, size = 4, "IndexError: index out of bounds for axis 0" : tensor<i64>
        %jj = tj.to_index %j, size = 4, "IndexError: index out of bounds for axis 1" : tensor<i64>
        %r2 = tj.insert_slice %v into %r1, start = [-9223372036854775808, -9223372036854775808], step = [1, 1] starts(%ii, %jj) : tensor<1x1xf32> into tensor<4x4xf32>
        %jn = tj.add %j, %one : tensor<i64>
        tj.yield %jn, %r2 : tensor<i64>, tensor<4x4xf32>
      }
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %row : tensor<i64>, tensor<4x4xf32>
    }
    func.return %d : tensor<4x4xf32>
  }
}

// CHECK:      func.func @f(%{{.*}}: memref<1x1xf32>, %[[OUT:.*]]: memref<4x4xf32>)
// CHECK:      scf.while
// CHECK-NOT:  memref.alloc() : memref<4x4xf32>
// CHECK:      scf.while
// CHECK:        %[[RAW:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK:        arith.select
// CHECK:        cf.assert %{{.*}}, "IndexError: index out of bounds for axis 0"
// CHECK:        cf.assert %{{.*}}, "IndexError: index out of bounds for axis 1"
// CHECK-NOT:    memref.alloc() : memref<4x4xf32>
// CHECK-NOT:    linalg.generic {{.*}}memref<4x4xf32>
// CHECK:        scf.for
// CHECK:          scf.for
// CHECK:            %[[X:.*]] = memref.load %{{.*}} : memref<1x1xf32>
// CHECK-NEXT:       memref.store %[[X]], %[[OUT]][%{{.*}}, %{{.*}}] : memref<4x4xf32>
// CHECK-NOT:  memref.alloc() : memref<4x4xf32>
// CHECK:      func.return
