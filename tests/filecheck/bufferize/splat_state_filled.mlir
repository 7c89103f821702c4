// bufferize of two loops whose state starts from one splat constant (np.zeros_like(x)
// twice: CSE makes them one tj.constant) and that each write into their own array: each
// state buffer (here the function's outputs) is filled with the constant, not copied from
// the constant's buffer, and that buffer -- allocated, filled, never read -- is dropped
// with its fill and its free (passes/bufferize/write_only.py). Before: a 512 KiB heap
// buffer filled, copied twice and freed.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

// CHECK:      func.func @two_fills(%[[X:.*]]: memref<65536xf64>, %{{.*}}: memref<i64>, %[[A:.*]]: memref<65536xf64>, %[[B:.*]]: memref<65536xf64>)
// CHECK-NOT:  memref.alloc()
// CHECK:      outs(%[[A]] : memref<65536xf64>)
// CHECK-NEXT: ^bb{{.*}}(%{{.*}}: f64):
// CHECK-NEXT:   arith.constant 0.000000e+00 : f64
// CHECK-NOT:  memref.alloc()
// CHECK:      scf.while
// CHECK-NOT:  ins(%{{.*}} : memref<65536xf64>) outs(%[[B]]
// CHECK:      outs(%[[B]] : memref<65536xf64>)
// CHECK-NEXT: ^bb{{.*}}(%{{.*}}: f64):
// CHECK-NEXT:   arith.constant 0.000000e+00 : f64
// CHECK:      scf.while
// CHECK-NOT:  memref.alloc()
// CHECK-NOT:  memref.dealloc

builtin.module {
  func.func @two_fills(%0: tensor<65536xf64>, %1: tensor<i64>) -> (tensor<65536xf64>, tensor<65536xf64>) {
    %2 = tj.constant dense<0.000000e+00> : tensor<65536xf64>
    %3 = tj.constant dense<0> : tensor<i64>
    %4 = tj.constant dense<false> : tensor<i1>
    %5, %6, %7, %8 = tj.while %3, %4, %3, %2 : (tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>) -> (tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>) {
    ^bb0(%9: tensor<i64>, %10: tensor<i1>, %11: tensor<i64>, %12: tensor<65536xf64>):
      %13 = tj.compare "lt" %9, %1 : tensor<i64> -> tensor<i1>
      tj.condition %13 : tensor<i1>
    } do {
    ^bb0(%14: tensor<i64>, %15: tensor<i1>, %16: tensor<i64>, %17: tensor<65536xf64>):
      %18 = tj.to_index %14, size = 65536, "IndexError: index out of bounds for axis 0 with size 65536" : tensor<i64>
      %19 = tj.fused %0, %18 : (tensor<65536xf64>, index) -> tensor<f64> {
      ^bb0(%20: tensor<65536xf64>, %21: index):
        %22 = tj.slice %20, start = [-9223372036854775808], step = [1] starts(%21) : tensor<65536xf64> to tensor<1xf64>
        %23 = tj.reshape %22 : tensor<1xf64> to tensor<f64>
        %24 = tj.constant dense<2.000000e+00> : tensor<f64>
        %25 = tj.mul %23, %24 : tensor<f64>
        tj.yield %25 : tensor<f64>
      }
      %20 = tj.reshape %19 : tensor<f64> to tensor<1xf64>
      %21 = tj.insert_slice %20 into %17, start = [-9223372036854775808], step = [1] starts(%18) : tensor<1xf64> into tensor<65536xf64>
      %22 = tj.fused %14 : (tensor<i64>) -> tensor<i64> {
      ^bb0(%23: tensor<i64>):
        %24 = tj.constant dense<1> : tensor<i64>
        %25 = tj.add %23, %24 : tensor<i64>
        tj.yield %25 : tensor<i64>
      }
      %23 = tj.constant dense<true> : tensor<i1>
      tj.yield %22, %23, %14, %21 : tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>
    }
    %24, %25, %26, %27 = tj.while %3, %6, %7, %2 : (tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>) -> (tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>) {
    ^bb0(%28: tensor<i64>, %29: tensor<i1>, %30: tensor<i64>, %31: tensor<65536xf64>):
      %32 = tj.compare "lt" %28, %1 : tensor<i64> -> tensor<i1>
      tj.condition %32 : tensor<i1>
    } do {
    ^bb0(%33: tensor<i64>, %34: tensor<i1>, %35: tensor<i64>, %36: tensor<65536xf64>):
      %37 = tj.to_index %33, size = 65536, "IndexError: index out of bounds for axis 0 with size 65536" : tensor<i64>
      %38 = tj.fused %0, %37 : (tensor<65536xf64>, index) -> tensor<f64> {
      ^bb0(%39: tensor<65536xf64>, %40: index):
        %41 = tj.slice %39, start = [-9223372036854775808], step = [1] starts(%40) : tensor<65536xf64> to tensor<1xf64>
        %42 = tj.reshape %41 : tensor<1xf64> to tensor<f64>
        %43 = tj.constant dense<1.000000e+00> : tensor<f64>
        %44 = tj.add %42, %43 : tensor<f64>
        tj.yield %44 : tensor<f64>
      }
      %39 = tj.reshape %38 : tensor<f64> to tensor<1xf64>
      %40 = tj.insert_slice %39 into %36, start = [-9223372036854775808], step = [1] starts(%37) : tensor<1xf64> into tensor<65536xf64>
      %41 = tj.fused %33 : (tensor<i64>) -> tensor<i64> {
      ^bb0(%42: tensor<i64>):
        %43 = tj.constant dense<1> : tensor<i64>
        %44 = tj.add %42, %43 : tensor<i64>
        tj.yield %44 : tensor<i64>
      }
      %42 = tj.constant dense<true> : tensor<i1>
      tj.yield %41, %42, %33, %40 : tensor<i64>, tensor<i1>, tensor<i64>, tensor<65536xf64>
    }
    func.return %8, %27 : tensor<65536xf64>, tensor<65536xf64>
  }
}
