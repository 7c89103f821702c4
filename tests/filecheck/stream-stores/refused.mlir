// RUN: tracejit-opt %s -p 'stream-stores{min-bytes=1024}' | filecheck %s

// Stores stream-stores leaves as they are: each function's loop stays one scalar loop.

// Smaller than min-bytes (1020 bytes).
func.func @small(%x: memref<255xf32>, %o: memref<255xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  scf.for %i = %c0 to %c255 step %c1 {
    %a = memref.load %x[%i] : memref<255xf32>
    memref.store %a, %o[%i] : memref<255xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @small
// CHECK-NOT:     vector.store
// CHECK:         func.return

// The loop reads the buffer it writes (a running update): a line written late would
// change what later iterations read.
func.func @reads_itself(%x: memref<1024xf32>, %o: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c1 to %c1024 step %c1 {
    %prev_i = arith.subi %i, %c1 : index
    %prev = memref.load %o[%prev_i] : memref<1024xf32>
    %a = memref.load %x[%i] : memref<1024xf32>
    %s = arith.addf %prev, %a : f32
    memref.store %s, %o[%i] : memref<1024xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @reads_itself
// CHECK-NOT:     vector.store
// CHECK:         func.return

// The same, through a view of the buffer.
func.func @reads_a_view(%o: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %view = "memref.cast"(%o) : (memref<1024xf32>) -> memref<?xf32>
  scf.for %i = %c1 to %c1024 step %c1 {
    %prev_i = arith.subi %i, %c1 : index
    %prev = memref.load %view[%prev_i] : memref<?xf32>
    memref.store %prev, %o[%i] : memref<1024xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @reads_a_view
// CHECK-NOT:     vector.store
// CHECK:         func.return

// Not along the loop: the store's last index is not the induction variable (a column).
func.func @column(%x: memref<512x512xf32>, %o: memref<512x512xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c512 step %c1 {
    %a = memref.load %x[%i, %j] : memref<512x512xf32>
    memref.store %a, %o[%i, %j] : memref<512x512xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @column
// CHECK-NOT:     vector.store
// CHECK:         func.return

// A loop with results (a reduction), a step of 2, a buffer of dynamic size, and bools.
func.func @others(%x: memref<1024xf32>, %o: memref<1024xf32>, %d: memref<?xf32>,
                  %m: memref<2048xi1>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %x[%i] : memref<1024xf32>
    memref.store %a, %o[%i] : memref<1024xf32>
    %next = arith.addf %acc, %a : f32
    scf.yield %next : f32
  }
  scf.for %i = %c0 to %c1024 step %c2 {
    memref.store %zero, %o[%i] : memref<1024xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %d[%i] : memref<?xf32>
  }
  %true = arith.constant true
  scf.for %i = %c0 to %c2048 step %c1 {
    memref.store %true, %m[%i] : memref<2048xi1>
  }
  func.return %sum : f32
}
// CHECK-LABEL: func.func @others
// CHECK-NOT:     vector.store
// CHECK:         func.return

// Rows too short for a line (3 iterations, constant bounds), though the buffer is big.
func.func @short_rows(%x: memref<4096x3xf32>, %o: memref<4096x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4096 = arith.constant 4096 : index
  scf.for %j = %c0 to %c4096 step %c1 {
    scf.for %i = %c0 to %c3 step %c1 {
      %a = memref.load %x[%j, %i] : memref<4096x3xf32>
      memref.store %a, %o[%j, %i] : memref<4096x3xf32>
    }
  }
  func.return
}
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:     vector.store
// CHECK:         func.return
