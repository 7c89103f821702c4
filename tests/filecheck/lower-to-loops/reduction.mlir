// RUN: tracejit-opt %s -p lower-to-loops | filecheck %s

// Sum over axis 0: the innermost dim d1 is parallel and contiguous in %x, so the loops keep
// their order (reduction d0 outside) and each output element is loaded, added to and stored in
// the innermost loop: unit stride in %x and %out, which vectorises.
func.func @sum_axis0(%x: memref<?x3xf32>, %out: memref<3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x3xf32>) outs(%out : memref<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// Sum over all axes into a 0-d memref: no parallel loop, two nested reduction loops; the
// innermost, of a length known only at run time, in blocks (lower-to-loops, blocked_sums).
func.func @sum_all(%x: memref<4x?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<4x?xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @sum_axis0(%x: memref<?x3xf32>, %out: memref<3xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    [[N:%.*]] = memref.dim %x, %c0 : memref<?x3xf32>
// CHECK-NEXT:    scf.for %d0 = %c0 to [[N]] step %c1 {
// CHECK-NEXT:      scf.for %d1 = %c0 to %c3 step %c1 {
// CHECK-NEXT:        [[ACC:%.*]] = memref.load %out[%d1] : memref<3xf32>
// CHECK-NEXT:        [[A:%.*]] = memref.load %x[%d0, %d1] : memref<?x3xf32>
// CHECK-NEXT:        %s = arith.addf [[ACC]], [[A]] fastmath<reassoc> : f32
// CHECK-NEXT:        memref.store %s, %out[%d1] : memref<3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-LABEL: func.func @sum_all(%x: memref<4x?xf32>, %out: memref<f32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    [[N:%.*]] = memref.dim %x, %c1 : memref<4x?xf32>
// CHECK-NEXT:    [[INIT:%.*]] = memref.load %out[] : memref<f32>
// CHECK-NEXT:    [[SUM:%.*]] = scf.for %d0 = %c0 to %c4 step %c1 iter_args(%acc = [[INIT]]) -> (f32) {
// CHECK-NEXT:      [[BLOCK:%.*]] = arith.constant 4096 : index
// CHECK-NEXT:      [[ROW:%.*]] = scf.for %blk = %c0 to [[N]] step [[BLOCK]] iter_args([[ACC:%.*]] = %acc) -> (f32) {
// CHECK-NEXT:        [[END:%.*]] = arith.addi %blk, [[BLOCK]] : index
// CHECK-NEXT:        [[STOP:%.*]] = arith.minui [[END]], [[N]] : index
// CHECK-NEXT:        [[ZERO:%.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:        [[PART:%.*]] = scf.for %d1 = %blk to [[STOP]] step %c1 iter_args(%part = [[ZERO]]) -> (f32) {
// CHECK-NEXT:          [[A:%.*]] = memref.load %x[%d0, %d1] : memref<4x?xf32>
// CHECK-NEXT:          %s = arith.addf %part, [[A]] fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %s : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        [[NEXT:%.*]] = arith.addf [[ACC]], [[PART]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield [[NEXT]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield [[ROW]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store [[SUM]], %out[] : memref<f32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
