// RUN: tracejit-opt %s -p simplify-loops | filecheck %s

// A 2x1 reduction as lower-to-loops builds it: the unit dim's loop runs once, so it is
// replaced by its body with the induction variable set to 0, and the row-major offset
// d0 * 1 + 0 folds to d0.
func.func @unit_dim(%m: memref<2x1xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %init = memref.load %out[] : memref<f32>
  %r = scf.for %d0 = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (f32) {
    %s = scf.for %d1 = %c0 to %c1 step %c1 iter_args(%acc2 = %acc) -> (f32) {
      %v = memref.load %m[%d0, %d1] : memref<2x1xf32>
      %one = arith.constant 1 : index
      %row = arith.muli %d0, %one : index
      %flat = arith.addi %row, %d1 : index
      %sum = arith.addf %acc2, %v : f32
      scf.yield %sum : f32
    }
    scf.yield %s : f32
  }
  memref.store %r, %out[] : memref<f32>
  func.return
}

// CHECK-LABEL: func.func @unit_dim(
// CHECK:         %{{.*}} = scf.for %[[D0:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[V:.*]] = memref.load %m[%[[D0]], %c0] : memref<2x1xf32>
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      scf.yield %[[SUM]] : f32
// CHECK-NEXT:    }

// A loop that never runs disappears and its results are its initial values; one with
// dynamic bounds stays; float arithmetic on constants is left alone.
func.func @empty_and_dynamic(%m: memref<?xf32>, %n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c5 to %c0 step %c1 iter_args(%acc = %x) -> (f32) {
    %v = memref.load %m[%i] : memref<?xf32>
    scf.yield %v : f32
  }
  scf.for %j = %c0 to %n step %c1 {
    memref.store %r, %m[%j] : memref<?xf32>
  }
  %two = arith.constant 2.0 : f32
  %four = arith.addf %two, %two : f32
  %y = arith.mulf %r, %four : f32
  func.return %y : f32
}

// CHECK-LABEL: func.func @empty_and_dynamic(
// CHECK-NOT:     iter_args
// CHECK:         scf.for %[[J:.*]] = %c0 to %n step %c1 {
// CHECK-NEXT:      memref.store %x, %m[%[[J]]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %four = arith.addf %two, %two : f32
// CHECK-NEXT:    %y = arith.mulf %x, %four : f32
// CHECK-NEXT:    func.return %y : f32
