// RUN: tracejit-opt %s -p 'tile-matmul{min-volume=0 wide-int-min-volume=0 target=avx2}' | filecheck %s

// `bufferize` sets C to zero right before every product. The tiled nest leaves that pass over
// C out: the first depth block stores its register tiles (`%first` selects the tile over
// the sum with C's old contents), later blocks add theirs.
#A = affine_map<(i, j, k) -> (i, k)>
#B = affine_map<(i, j, k) -> (k, j)>
#C = affine_map<(i, j, k) -> (i, j)>
#FILL = affine_map<(i, j) -> (i, j)>

func.func @two_depth_blocks(%a: memref<12x300xf32>, %b: memref<300x32xf32>, %c: memref<12x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#FILL], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<12x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.generic {indexing_maps = [#A, #B, #C],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<12x300xf32>, memref<300x32xf32>) outs(%c : memref<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @two_depth_blocks
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %pc = %c0 to %c300 step %c256 {
// CHECK:             %first = arith.cmpi eq, %pc, %c0 : index
// CHECK:                 [[TILE:%.*]] = memref.load %acc
// CHECK-NEXT:            [[OLD:%.*]] = memref.load %c
// CHECK-NEXT:            [[SUM:%.*]] = arith.addf [[OLD]], [[TILE]] fastmath<reassoc> : f32
// CHECK-NEXT:            [[NEW:%.*]] = arith.select %first, [[TILE]], [[SUM]] : f32
// CHECK-NEXT:            memref.store [[NEW]], %c
// CHECK:         func.return

// One depth block (K = 40): every tile is stored once, no branch and no add.
func.func @one_depth_block(%a: memref<12x40xi32>, %b: memref<40x32xi32>, %c: memref<12x32xi32>) {
  linalg.generic {indexing_maps = [#FILL], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<12x32xi32>) {
  ^bb0(%out: i32):
    %zero = arith.constant 0 : i32
    linalg.yield %zero : i32
  }
  linalg.generic {indexing_maps = [#A, #B, #C],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<12x40xi32>, memref<40x32xi32>) outs(%c : memref<12x32xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @one_depth_block
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     %first
// CHECK:         %p = arith.muli
// CHECK-NEXT:    %s = arith.addi
// CHECK:         [[TILE:%.*]] = memref.load %acc
// CHECK-NEXT:    memref.store [[TILE]], %c
// CHECK-NOT:     arith.addi
// CHECK:         func.return

// Kept: a depth that may be 0 at run time (no block would store), and a fill that is not 0.
func.func @dynamic_depth(%a: memref<12x?xf32>, %b: memref<?x32xf32>, %c: memref<12x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#FILL], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<12x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.generic {indexing_maps = [#A, #B, #C],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<12x?xf32>, memref<?x32xf32>) outs(%c : memref<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_depth
// CHECK:         linalg.generic
// CHECK-NOT:     %first
// CHECK:         func.return

func.func @ones(%a: memref<12x40xf32>, %b: memref<40x32xf32>, %c: memref<12x32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#FILL], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<12x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %one : f32
  }
  linalg.generic {indexing_maps = [#A, #B, #C],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<12x40xf32>, memref<40x32xf32>) outs(%c : memref<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @ones
// CHECK:         linalg.generic
// CHECK:         arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:         func.return
