// RUN: tracejit-opt %s -p 'tile-matmul{target=avx2}' | filecheck %s

// What tile-matmul leaves for lower-to-loops (with its default options).

// A static product of fewer than min-volume = 4096 multiply-adds (8*8*8 = 512): the plain
// nest is as fast and far cheaper to compile.
func.func @small(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @small
// CHECK-NEXT:    linalg.generic

// Integers of 32 bits or more below wide-int-min-volume = 2**25 multiply-adds: LLVM
// vectorizes the plain nest along j, but the register tile along its rows, with gathers.
func.func @small_int64(%a: memref<40x30xi64>, %b: memref<30x20xi64>, %c: memref<40x20xi64>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<40x30xi64>, memref<30x20xi64>) outs(%c : memref<40x20xi64>) {
  ^bb0(%x: i64, %y: i64, %acc: i64):
    %p = arith.muli %x, %y : i64
    %s = arith.addi %acc, %p : i64
    linalg.yield %s : i64
  }
  func.return
}

// CHECK-LABEL: func.func @small_int64
// CHECK-NEXT:    linalg.generic

// A float sum that may not be reassociated: tiling would change the order of the sum.
func.func @ordered(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @ordered
// CHECK-NEXT:    linalg.generic

// Matrix @ vector (blocked by rows, support/tile_matvec.py) when small: 8*16 < min-volume.
func.func @small_matvec(%a: memref<8x16xf32>, %v: memref<16xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : memref<8x16xf32>, memref<16xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @small_matvec
// CHECK-NEXT:    linalg.generic

// ... and when its float dot products are longer than lower-to-loops' SUM_BLOCK (4096):
// lower-to-loops sums them in blocks, for accuracy.
func.func @long_matvec(%a: memref<2x5000xf32>, %v: memref<5000xf32>, %out: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : memref<2x5000xf32>, memref<5000xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @long_matvec
// CHECK-NEXT:    linalg.generic
