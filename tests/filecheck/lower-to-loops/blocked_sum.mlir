// RUN: tracejit-opt %s -p lower-to-loops | filecheck %s

// A float sum over 10000 elements (more than SUM_BLOCK = 4096): the reduction loop runs in
// blocks of 4096, each summed from -0.0 (addf's identity) in its own register and then added
// to the accumulator, so rounding errors grow with 10000/4096 + 4096, not with 10000.
func.func @sum(%x: memref<10000xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<10000xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @sum(%x: memref<10000xf32>, %out: memref<f32>) {
// CHECK:         [[INIT:%.*]] = memref.load %out[] : memref<f32>
// CHECK-NEXT:    [[BLOCK:%.*]] = arith.constant 4096 : index
// CHECK-NEXT:    [[SUM:%.*]] = scf.for %blk = %c0 to %c10000 step [[BLOCK]] iter_args(%acc = [[INIT]]) -> (f32) {
// CHECK-NEXT:      [[END:%.*]] = arith.addi %blk, [[BLOCK]] : index
// CHECK-NEXT:      [[STOP:%.*]] = arith.minui [[END]], %c10000 : index
// CHECK-NEXT:      [[ZERO:%.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      [[PART:%.*]] = scf.for %d0 = %blk to [[STOP]] step %c1 iter_args(%part = [[ZERO]]) -> (f32) {
// CHECK-NEXT:        [[A:%.*]] = memref.load %x[%d0] : memref<10000xf32>
// CHECK-NEXT:        %s = arith.addf %part, [[A]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %s : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      [[NEW:%.*]] = arith.addf %acc, [[PART]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield [[NEW]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store [[SUM]], %out[] : memref<f32>

// A short sum (10 elements) keeps the single loop.
func.func @short(%x: memref<10xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<10xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @short
// CHECK-NOT:     %blk
// CHECK:         scf.for %d0 = %c0 to %c10 step %c1 iter_args

// A sum over a length known only at run time runs in blocks too (a 16M-element float32 sum
// of unknown length was off by 3e-3 relative as one loop): the blocks end at the run-time size.
func.func @dynamic_sum(%x: memref<?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<?xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_sum(%x: memref<?xf32>, %out: memref<f32>) {
// CHECK:         [[N:%.*]] = memref.dim %x, %{{.*}} : memref<?xf32>
// CHECK:         [[BLOCK:%.*]] = arith.constant 4096 : index
// CHECK-NEXT:    {{%.*}} = scf.for %blk = %{{.*}} to [[N]] step [[BLOCK]] iter_args(%acc = {{%.*}}) -> (f32) {
// CHECK-NEXT:      [[END:%.*]] = arith.addi %blk, [[BLOCK]] : index
// CHECK-NEXT:      [[STOP:%.*]] = arith.minui [[END]], [[N]] : index
// CHECK-NEXT:      [[ZERO:%.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      {{%.*}} = scf.for %d0 = %blk to [[STOP]] step %{{.*}} iter_args(%part = [[ZERO]]) -> (f32) {

// A whole (10000, 100) array: its rows of 100 elements are shorter than a block, so the
// blocked loop is the one over rows, 4096 // 100 = 40 rows per block, each block's rows
// summed from -0.0 (as 10000 rows into one register it was off by 5e-4 relative in float32).
func.func @rows(%x: memref<10000x100xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<10000x100xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @rows(%x: memref<10000x100xf32>, %out: memref<f32>) {
// CHECK:         [[INIT:%.*]] = memref.load %out[] : memref<f32>
// CHECK-NEXT:    [[BLOCK:%.*]] = arith.constant 40 : index
// CHECK-NEXT:    [[SUM:%.*]] = scf.for %blk = %c0 to %c10000 step [[BLOCK]] iter_args(%acc = [[INIT]]) -> (f32) {
// CHECK-NEXT:      [[END:%.*]] = arith.addi %blk, [[BLOCK]] : index
// CHECK-NEXT:      [[STOP:%.*]] = arith.minui [[END]], %c10000 : index
// CHECK-NEXT:      [[ZERO:%.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      [[PART:%.*]] = scf.for %d0 = %blk to [[STOP]] step %c1 iter_args(%part = [[ZERO]]) -> (f32) {
// CHECK-NEXT:        [[ROW:%.*]] = scf.for %d1 = %c0 to %c100 step %c1 iter_args(%acc_1 = %part) -> (f32) {
// CHECK-NEXT:          [[A:%.*]] = memref.load %x[%d0, %d1] : memref<10000x100xf32>
// CHECK-NEXT:          %s = arith.addf %acc_1, [[A]] fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %s : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield [[ROW]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      [[NEW:%.*]] = arith.addf %acc, [[PART]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield [[NEW]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store [[SUM]], %out[] : memref<f32>

// The same rows summed in a (30, 100) array: 3,000 elements, one loop nest.
func.func @few_rows(%x: memref<30x100xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<30x100xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @few_rows
// CHECK-NOT:     %blk
// CHECK:         scf.for %d0 = %c0 to %c30 step %c1 iter_args
