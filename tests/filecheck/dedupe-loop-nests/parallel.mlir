// RUN: tracejit-opt %s -p parallelize,dedupe-loop-nests | filecheck %s

// Two big parallel loops doing the same on other buffers: parallelize outlines each into a
// function; dedupe-loop-nests keeps one of the two functions (they differ only in their
// name), and both calls call it, still flagged with their work for the fork.
func.func @twice(%x: memref<2000000xf32>, %y: memref<2000000xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 2000000 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<2000000xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %y[%i] : memref<2000000xf32>
  } {tj.parallel}
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %y[%i] : memref<2000000xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %x[%i] : memref<2000000xf32>
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @twice(
// CHECK:         %{{.*}} = func.call @[[F:twice__par[0-9]]](%x, %s, %y, %{{.*}}, %{{.*}}) {tj.parallel_work = 3 : i64}
// CHECK:         %{{.*}} = func.call @[[F]](%y, %s, %x, %{{.*}}, %{{.*}}) {tj.parallel_work = 3 : i64}
// CHECK-NEXT:    func.return
// CHECK-COUNT-1: func.func private @twice__par
// CHECK-NOT:     func.func private
