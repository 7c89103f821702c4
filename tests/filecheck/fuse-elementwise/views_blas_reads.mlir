// RUN: tracejit-opt %s -p fuse-elementwise | filecheck %s
// RUN: tracejit-opt %s -p fuse-elementwise,use-blas,bufferize | filecheck %s --check-prefix=BUFFERS
// A chain of views read only by a product BLAS computes (`w[:, :40].T @ y`, an MLP's
// backward pass through a slice of a weight matrix) is left as it is: a kernel of the slice
// and the transpose would copy the window, where BLAS reads it in place, the window's
// first element and its rows' pitch (60), taken with "T". The same chain read by an integer
// product (our kernel, no BLAS) is still one copying kernel.

func.func @views_blas_reads(%w: tensor<80x60xf64>, %y: tensor<80x30xf64>,
                            %v: tensor<80x60xi32>, %z: tensor<80x30xi32>)
    -> (tensor<40x30xf64>, tensor<40x30xi32>) {
  %s = tj.slice %w, start = [0, 0], step = [1, 1] : tensor<80x60xf64> to tensor<80x40xf64>
  %t = tj.transpose %s, permutation = [1, 0] : tensor<80x40xf64> to tensor<40x80xf64>
  %p = tj.matmul %t, %y : (tensor<40x80xf64>, tensor<80x30xf64>) -> tensor<40x30xf64>
  %si = tj.slice %v, start = [0, 0], step = [1, 1] : tensor<80x60xi32> to tensor<80x40xi32>
  %ti = tj.transpose %si, permutation = [1, 0] : tensor<80x40xi32> to tensor<40x80xi32>
  %q = tj.matmul %ti, %z : (tensor<40x80xi32>, tensor<80x30xi32>) -> tensor<40x30xi32>
  func.return %p, %q : tensor<40x30xf64>, tensor<40x30xi32>
}

// CHECK:      %[[S:.*]] = tj.slice %w, start = [0, 0], step = [1, 1]
// CHECK-NEXT: %[[T:.*]] = tj.transpose %[[S]], permutation = [1, 0]
// CHECK-NEXT: %{{.*}} = tj.matmul %[[T]], %y
// CHECK-NEXT: %[[K:.*]] = tj.fused %v
// CHECK:        tj.slice
// CHECK-NEXT:   tj.transpose
// CHECK:      tj.matmul %[[K]], %z

// The f64 product reads `w`'s own buffer (offset 0, leading dim 60) with "T" (84):
// BUFFERS:     func.func @views_blas_reads(%[[W:[0-9]+]]: memref<80x60xf64>
// BUFFERS-NOT: memref.alloc() : memref<40x80xf64>
// BUFFERS:     arith.constant 84 : i8
// BUFFERS:     func.call @tracejit_lapack_dgemm({{.*}}, %[[W]], {{.*}})
// BUFFERS:     memref.alloc() {{.*}}: memref<40x80xi32>
