// RUN: tracejit-opt %s -p lower-to-loops | filecheck %s

// x + y with y broadcast along the dynamic first dim: the `?` bound comes from memref.dim,
// the size-1 dim is indexed with constant 0, and the unused output argument is not loaded.
func.func @add_broadcast(%x: memref<?x3xf32>, %y: memref<1x3xf32>, %t: memref<?x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x3xf32>, memref<1x3xf32>) outs(%t : memref<?x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  func.return
}

// A transposed read; a static zero-size dim needs nothing special (the loop runs zero times).
func.func @transpose_exp(%x: memref<0x2xf32>, %t: memref<2x0xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<0x2xf32>) outs(%t : memref<2x0xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  func.return
}

// linalg.fill: a scalar operand is used as is; other ops are left alone.
func.func @fill(%t: memref<4xi32>) {
  %v = arith.constant 7 : i32
  linalg.fill ins(%v : i32) outs(%t : memref<4xi32>)
  %c2 = arith.constant 2 : index
  memref.store %v, %t[%c2] : memref<4xi32>
  func.return
}

// CHECK-LABEL: func.func @add_broadcast(%x: memref<?x3xf32>, %y: memref<1x3xf32>, %t: memref<?x3xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    [[N:%.*]] = memref.dim %x, %c0 : memref<?x3xf32>
// CHECK-NEXT:    scf.for %d0 = %c0 to [[N]] step %c1 {
// CHECK-NEXT:      scf.for %d1 = %c0 to %c3 step %c1 {
// CHECK-NEXT:        [[A:%.*]] = memref.load %x[%d0, %d1] : memref<?x3xf32>
// CHECK-NEXT:        [[B:%.*]] = memref.load %y[%c0, %d1] : memref<1x3xf32>
// CHECK-NEXT:        %s = arith.addf [[A]], [[B]] : f32
// CHECK-NEXT:        memref.store %s, %t[%d0, %d1] : memref<?x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-LABEL: func.func @transpose_exp(%x: memref<0x2xf32>, %t: memref<2x0xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    scf.for %d0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:      scf.for %d1 = %c0 to %c0 step %c1 {
// CHECK-NEXT:        [[A:%.*]] = memref.load %x[%d1, %d0] : memref<0x2xf32>
// CHECK-NEXT:        %e = math.exp [[A]] : f32
// CHECK-NEXT:        memref.store %e, %t[%d0, %d1] : memref<2x0xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-LABEL: func.func @fill(%t: memref<4xi32>) {
// CHECK-NEXT:    %v = arith.constant 7 : i32
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    scf.for %d0 = %c0 to %c4 step %c1 {
// CHECK-NEXT:      memref.store %v, %t[%d0] : memref<4xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    memref.store %v, %t[%c2] : memref<4xi32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NOT:   linalg.
