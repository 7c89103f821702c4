// RUN: tracejit-opt %s -p 'stream-stores{min-bytes=1024}' | filecheck %s

// An element-wise loop writing a 4000-byte buffer (at least min-bytes): 62 lines of 16
// floats are computed into a 64-byte stack tile each and written with one non-temporal
// vector store; the loop itself runs the 8 left over. The line loop takes tj.parallel.
func.func @add(%x: memref<1000xf32>, %y: memref<1000xf32>, %o: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    %a = memref.load %x[%i] : memref<1000xf32>
    %b = memref.load %y[%i] : memref<1000xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %o[%i] : memref<1000xf32>
  } {tj.parallel}
  func.return
}
// CHECK-LABEL: func.func @add
// CHECK-DAG:     %[[LINES:.*]] = arith.constant 62 : index
// CHECK-DAG:     %[[TAIL:.*]] = arith.constant 992 : index
// CHECK:         scf.for %line = %{{.*}} to %[[LINES]] step %{{.*}} {
// CHECK-NEXT:      %tile = memref.alloca() alignment = 64 : memref<16xf32>
// CHECK-NEXT:      %[[W:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %base = arith.muli %line, %[[W]] : index
// CHECK:           scf.for %lane = %{{.*}} to %[[W]] step %{{.*}} {
// CHECK-NEXT:        %[[I:.*]] = arith.addi %base, %lane : index
// CHECK-NEXT:        %{{.*}} = memref.load %x[%[[I]]] : memref<1000xf32>
// CHECK-NEXT:        %{{.*}} = memref.load %y[%[[I]]] : memref<1000xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf
// CHECK-NEXT:        memref.store %[[S]], %tile[%lane] : memref<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[LINE:.*]] = vector.load %tile[%{{.*}}] : memref<16xf32>, vector<16xf32>
// CHECK-NEXT:      vector.store %[[LINE]], %o[%base] nontemporal = true : memref<1000xf32>, vector<16xf32>
// CHECK-NEXT:    } {tj.parallel}
// CHECK-NEXT:    scf.for %i = %[[TAIL]] to %c1000 step %c1 {
// CHECK:           memref.store %{{.*}}, %o[%i] : memref<1000xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     tj.parallel
// CHECK:         func.return

// The inner loop of a 2-D nest: the row index stays as it was (defined outside the loop);
// the loop's bounds are not constants, so the line count (none when %hi < %lo) and the
// tail's start are computed.
func.func @rows(%x: memref<64x100xf64>, %o: memref<64x100xf64>, %lo: index, %hi: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    scf.for %i = %lo to %hi step %c1 {
      %a = memref.load %x[%j, %i] : memref<64x100xf64>
      %d = arith.mulf %a, %a : f64
      memref.store %d, %o[%j, %i] : memref<64x100xf64>
    }
  } {tj.parallel}
  func.return
}
// CHECK-LABEL: func.func @rows
// CHECK:         scf.for %[[J:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT:      %[[W:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D:.*]] = arith.subi %hi, %lo : index
// CHECK-NEXT:      %[[N:.*]] = arith.maxsi %[[D]], %[[Z]] : index
// CHECK-NEXT:      %[[LINES:.*]] = arith.divui %[[N]], %[[W]] : index
// CHECK-NEXT:      %[[DONE:.*]] = arith.muli %[[LINES]], %[[W]] : index
// CHECK-NEXT:      %[[TAIL:.*]] = arith.addi %lo, %[[DONE]] : index
// CHECK:           scf.for %line = %{{.*}} to %[[LINES]] step %{{.*}} {
// CHECK-NEXT:        %tile = memref.alloca() alignment = 64 : memref<8xf64>
// CHECK:             %base = arith.addi %lo, %{{.*}} : index
// CHECK:             vector.store %{{.*}}, %o[%[[J]], %base] nontemporal = true : memref<64x100xf64>, vector<8xf64>
// CHECK:           scf.for %i = %[[TAIL]] to %hi step %c1 {
// CHECK:         } {tj.parallel}

// Two outputs of different element sizes: a line is 64 bytes of the smaller, 16 lanes, so
// the f64 output is written 128 bytes (two cache lines) at a time.
func.func @two(%x: memref<4096xf32>, %o: memref<4096xf32>, %p: memref<4096xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  scf.for %i = %c0 to %c4096 step %c1 {
    %a = memref.load %x[%i] : memref<4096xf32>
    %w = arith.extf %a : f32 to f64
    memref.store %a, %o[%i] : memref<4096xf32>
    memref.store %w, %p[%i] : memref<4096xf64>
  }
  func.return
}
// CHECK-LABEL: func.func @two
// CHECK:         %[[T32:.*]] = memref.alloca() alignment = 64 : memref<16xf32>
// CHECK-NEXT:    %[[T64:.*]] = memref.alloca() alignment = 64 : memref<16xf64>
// CHECK:           memref.store %{{.*}}, %[[T32]][%lane] : memref<16xf32>
// CHECK-NEXT:      memref.store %{{.*}}, %[[T64]][%lane] : memref<16xf64>
// CHECK:         vector.store %{{.*}}, %o[%base] nontemporal = true : memref<4096xf32>, vector<16xf32>
// CHECK:         vector.store %{{.*}}, %p[%base] nontemporal = true : memref<4096xf64>, vector<16xf64>

// A body with a branch (expand-math's slow path is one) is cloned whole into the tile loop.
func.func @branchy(%x: memref<2048xf32>, %o: memref<2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %big = arith.constant 1.0e6 : f32
  scf.for %i = %c0 to %c2048 step %c1 {
    %a = memref.load %x[%i] : memref<2048xf32>
    %far = arith.cmpf ogt, %a, %big : f32
    %r = scf.if %far -> (f32) {
      %s = math.sin %a : f32
      scf.yield %s : f32
    } else {
      scf.yield %a : f32
    }
    memref.store %r, %o[%i] : memref<2048xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @branchy
// CHECK:         scf.for %lane
// CHECK:           scf.if
// CHECK:             math.sin
// CHECK:           memref.store %{{.*}}, %tile[%lane] : memref<16xf32>
// CHECK:         vector.store %{{.*}}, %o[%base] nontemporal = true
