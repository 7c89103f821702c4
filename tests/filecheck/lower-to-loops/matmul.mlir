// RUN: tracejit-opt %s -p lower-to-loops | filecheck %s

// C += A @ B: loops i, j outside, the k reduction innermost with C[i, j] in a register.
func.func @matmul(%a: memref<2x?xf32>, %b: memref<?x4xf32>, %c: memref<2x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x?xf32>, memref<?x4xf32>) outs(%c : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @matmul(%a: memref<2x?xf32>, %b: memref<?x4xf32>, %c: memref<2x4xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    [[K:%.*]] = memref.dim %a, %c1 : memref<2x?xf32>
// CHECK-NEXT:    scf.for %d0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:      scf.for %d1 = %c0 to %c4 step %c1 {
// CHECK-NEXT:        [[INIT:%.*]] = memref.load %c[%d0, %d1] : memref<2x4xf32>
// CHECK-NEXT:        [[SUM:%.*]] = scf.for %d2 = %c0 to [[K]] step %c1 iter_args(%acc = [[INIT]]) -> (f32) {
// CHECK-NEXT:          [[X:%.*]] = memref.load %a[%d0, %d2] : memref<2x?xf32>
// CHECK-NEXT:          [[Y:%.*]] = memref.load %b[%d2, %d1] : memref<?x4xf32>
// CHECK-NEXT:          %p = arith.mulf [[X]], [[Y]] : f32
// CHECK-NEXT:          %s = arith.addf %acc, %p fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %s : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        memref.store [[SUM]], %c[%d0, %d1] : memref<2x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
