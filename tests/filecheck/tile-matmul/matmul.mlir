// RUN: tracejit-opt %s -p 'tile-matmul{min-volume=0 wide-int-min-volume=0 target=avx2}' | filecheck %s

// C[7x18] += A[7x5] @ B[5x18], f32: neither M nor N is a multiple of the 6x16 register tile.
// C's columns come in chunks of one 16-column micro-panel (the loop %jt, which threads may
// share); each chunk packs its columns of B (columns 18.. repeat column 17), the micro-kernel
// accumulates a 6x16 tile in %acc with math.fma (rows past 6 read row 6 and are never
// stored), and a tile on the edge of C is stored through %edge with bounded loops.
func.func @edges(%a: memref<7x5xf32>, %b: memref<5x18xf32>, %c: memref<7x18xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<7x5xf32>, memref<5x18xf32>) outs(%c : memref<7x18xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @edges
// CHECK:         %acc = memref.alloca() alignment = 64 : memref<6x16xf32>
// CHECK-NEXT:    %edge = memref.alloca() alignment = 64 : memref<6x16xf32>
// CHECK-NEXT:    %packed = memref.alloca() alignment = 64 : memref<1x5x16xf32>
// CHECK:         %zero = arith.constant 0.000000e+00 : f32
//                  a chunk of columns: pack its part of B
// CHECK:         scf.for %jt = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %j0 = arith.muli %jt, %c16 : index
// CHECK-NEXT:      scf.for %k = %c0 to %c5 step %c1 {
// CHECK-NEXT:        scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:          [[J:%.*]] = arith.addi %j0, %j : index
// CHECK-NEXT:          %col = arith.minui [[J]], %c17 : index
// CHECK-NEXT:          [[V:%.*]] = memref.load %b[%k, %col] : memref<5x18xf32>
// CHECK-NEXT:          memref.store [[V]], %packed[%c0, %k, %j] : memref<1x5x16xf32>
//                  6 rows at a time
// CHECK:           scf.for %ir = %c0 to %c7 step %c6 {
// CHECK:             memref.store %zero, %acc
//                    the micro-kernel
// CHECK:             scf.for %[[K:.*]] = %c0 to %c5 step %c1 {
// CHECK-NEXT:          scf.for %[[R:.*]] = %c0 to %c6 step %c1 {
// CHECK-NEXT:            [[I:%.*]] = arith.addi %ir, %[[R]] : index
// CHECK-NEXT:            %row = arith.minui [[I]], %c6 : index
// CHECK-NEXT:            %x = memref.load %a[%row, %[[K]]] : memref<7x5xf32>
// CHECK-NEXT:            scf.for %[[J2:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT:              [[Y:%.*]] = memref.load %packed[%c0, %[[K]], %[[J2]]] : memref<1x5x16xf32>
// CHECK-NEXT:              [[ACC:%.*]] = memref.load %acc[%[[R]], %[[J2]]] : memref<6x16xf32>
// CHECK-NEXT:              [[FMA:%.*]] = math.fma %x, [[Y]], [[ACC]] : f32
// CHECK-NEXT:              memref.store [[FMA]], %acc[%[[R]], %[[J2]]] : memref<6x16xf32>
//                    store the tile: whole, or clipped to C through %edge
// CHECK:             %rows = arith.minui {{.*}}, %c6 : index
// CHECK:             %cols = arith.minui {{.*}}, %c16 : index
// CHECK:             %full = arith.andi
// CHECK-NEXT:        scf.if %full {
// CHECK:               arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:             } else {
// CHECK:               memref.store {{.*}}, %edge
// CHECK:               scf.for %{{.*}} = %c0 to %rows step %c1 {
// CHECK-NEXT:            scf.for %{{.*}} = %c0 to %cols step %c1 {
// CHECK:                   arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK:         } {tj.parallel}
// CHECK-NEXT:    func.return

// C[12x32] += A[12x600] @ B[600x32]: K runs in blocks of 256 (the depth loop %pc, the last
// block 88 deep) inside each chunk of columns, after the chunk's packing of that block; 12
// and 32 are multiples of the 6x16 tile: no edge branch.
func.func @blocked(%a: memref<12x600xf32>, %b: memref<600x32xf32>, %c: memref<12x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<12x600xf32>, memref<600x32xf32>) outs(%c : memref<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @blocked
// CHECK-NOT:     %edge
// CHECK:         %packed = memref.alloca() alignment = 64 : memref<1x256x16xf32>
// CHECK:         scf.for %jt = %c0 to %c2 step %c1 {
// CHECK:           scf.for %pc = %c0 to %c600 step %c256 {
// CHECK-NEXT:        [[LEFT:%.*]] = arith.subi %c600, %pc : index
// CHECK-NEXT:        [[KC:%.*]] = arith.minui [[LEFT]], %c256 : index
// CHECK-NEXT:        scf.for %k = %c0 to [[KC]] step %c1 {
// CHECK:               memref.store {{.*}}, %packed
// CHECK:             scf.for %{{.*}} = %c0 to [[KC]] step %c1 {
// CHECK:               math.fma
// CHECK-NOT:         scf.if
// CHECK:         } {tj.parallel}
// CHECK-NEXT:    func.return

// Batched int32 with a broadcast batch dim of B (read at index 0): a loop over the batch dim
// outside the tiled nest (its iterations write their own slices of C: marked parallel too);
// the body is cloned (muli, addi: exact, wrapping), no fma.
func.func @batched(%a: memref<2x8x40xi32>, %b: memref<1x40x20xi32>, %c: memref<2x8x20xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n, i, j, k) -> (n, i, k)>,
                                   affine_map<(n, i, j, k) -> (0, k, j)>,
                                   affine_map<(n, i, j, k) -> (n, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x8x40xi32>, memref<1x40x20xi32>) outs(%c : memref<2x8x20xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK-LABEL: func.func @batched
// CHECK:         %zero = arith.constant 0 : i32
// CHECK:         scf.for %b0 = %c0 to %c2 step %c1 {
// CHECK:             memref.load %b[%c0, %k, %col] : memref<1x40x20xi32>
// CHECK:               %x = memref.load %a[%b0, %row, %{{.*}}] : memref<2x8x40xi32>
// CHECK:                 %p = arith.muli %x, %{{.*}} : i32
// CHECK-NEXT:            %s = arith.addi %{{.*}}, %p : i32
// CHECK-NOT:     math.fma
// CHECK:                 memref.store %{{.*}}, %c[%b0, %{{.*}}, %{{.*}}] : memref<2x8x20xi32>
// CHECK:           } {tj.parallel}
// CHECK-NEXT:    } {tj.parallel}
// CHECK-NEXT:    func.return

// B read transposed (the rows of `m` for `a @ m.T`, bufferize reads m in place): packing
// walks each row of m along k (k innermost: contiguous reads), into the same packed layout.
func.func @transposed_b(%a: memref<12x40xf32>, %m: memref<32x40xf32>, %c: memref<12x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (j, k)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %m : memref<12x40xf32>, memref<32x40xf32>) outs(%c : memref<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @transposed_b
// CHECK:         %packed = memref.alloca() alignment = 64 : memref<1x40x16xf32>
// CHECK:         scf.for %jt = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %j0 = arith.muli %jt, %c16 : index
// CHECK-NEXT:      scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:        scf.for %k = %c0 to %c40 step %c1 {
// CHECK-NEXT:          [[J:%.*]] = arith.addi %j0, %j : index
// CHECK-NEXT:          %col = arith.minui [[J]], %c31 : index
// CHECK-NEXT:          [[V:%.*]] = memref.load %m[%col, %k] : memref<32x40xf32>
// CHECK-NEXT:          memref.store [[V]], %packed[%c0, %k, %j] : memref<1x40x16xf32>
// CHECK:           math.fma
// CHECK:         func.return
