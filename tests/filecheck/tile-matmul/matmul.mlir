// RUN: tracejit-opt %s -p 'tile-matmul{min-volume=0}' | filecheck %s

// C[7x18] += A[7x5] @ B[5x18], f32: neither M nor N is a multiple of the 6x16 register tile.
// B is packed into two 16-column micro-panels (column 18.. repeat column 17), the micro-kernel
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
// CHECK:         %packed = memref.alloca() alignment = 64 : memref<2x5x16xf32>
// CHECK-NEXT:    %acc = memref.alloca() alignment = 64 : memref<6x16xf32>
// CHECK-NEXT:    %edge = memref.alloca() alignment = 64 : memref<6x16xf32>
// CHECK:         %zero = arith.constant 0.000000e+00 : f32
//                  pack B
// CHECK-NEXT:    scf.for %jb = %c0 to %c2 step %c1 {
// CHECK-NEXT:      [[START:%.*]] = arith.muli %jb, %c16 : index
// CHECK-NEXT:      scf.for %k = %c0 to %c5 step %c1 {
// CHECK-NEXT:        scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:          [[J:%.*]] = arith.addi [[START]], %j : index
// CHECK-NEXT:          %col = arith.minui [[J]], %c17 : index
// CHECK-NEXT:          [[V:%.*]] = memref.load %b[%k, %col] : memref<5x18xf32>
// CHECK-NEXT:          memref.store [[V]], %packed[%jb, %k, %j] : memref<2x5x16xf32>
//                  one micro-panel at a time, 6 rows at a time
// CHECK:         scf.for %[[JB:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %j0 = arith.muli %[[JB]], %c16 : index
// CHECK-NEXT:      scf.for %ir = %c0 to %c7 step %c6 {
// CHECK:             memref.store %zero, %acc
//                    the micro-kernel
// CHECK:             scf.for %[[K:.*]] = %c0 to %c5 step %c1 {
// CHECK-NEXT:          scf.for %[[R:.*]] = %c0 to %c6 step %c1 {
// CHECK-NEXT:            [[I:%.*]] = arith.addi %ir, %[[R]] : index
// CHECK-NEXT:            %row = arith.minui [[I]], %c6 : index
// CHECK-NEXT:            %x = memref.load %a[%row, %[[K]]] : memref<7x5xf32>
// CHECK-NEXT:            scf.for %[[J2:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT:              [[Y:%.*]] = memref.load %packed[%[[JB]], %[[K]], %[[J2]]] : memref<2x5x16xf32>
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
// CHECK:         func.return

// C[12x32] += A[12x600] @ B[600x32]: K runs in blocks of 256 (the depth loop %pc, the last
// block 88 deep), and 12 and 32 are multiples of the 6x16 tile: no edge branch.
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
// CHECK:         %packed = memref.alloca() alignment = 64 : memref<2x256x16xf32>
// CHECK-NOT:     %edge
// CHECK:         scf.for %pc = %c0 to %c600 step %c256 {
// CHECK-NEXT:      [[LEFT:%.*]] = arith.subi %c600, %pc : index
// CHECK-NEXT:      [[KC:%.*]] = arith.minui [[LEFT]], %c256 : index
// CHECK:             scf.for %{{.*}} = %c0 to [[KC]] step %c1 {
// CHECK:           math.fma
// CHECK-NOT:       scf.if
// CHECK:         func.return

// Batched int32 with a broadcast batch dim of B (read at index 0): a loop over the batch dim
// outside the tiled nest; the body is cloned (muli, addi: exact, wrapping), no fma.
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
// CHECK-NEXT:    scf.for %b0 = %c0 to %c2 step %c1 {
// CHECK:             memref.load %b[%c0, %k, %col] : memref<1x40x20xi32>
// CHECK:               %x = memref.load %a[%b0, %row, %{{.*}}] : memref<2x8x40xi32>
// CHECK:                 %p = arith.muli %x, %{{.*}} : i32
// CHECK-NEXT:            %s = arith.addi %{{.*}}, %p : i32
// CHECK-NOT:     math.fma
// CHECK:                 memref.store %{{.*}}, %c[%b0, %{{.*}}, %{{.*}}] : memref<2x8x20xi32>
// CHECK:         func.return
