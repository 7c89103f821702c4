// RUN: tracejit-opt %s -p parallelize | filecheck %s

// A big element-wise loop marked tj.parallel (as lower-to-loops marks it) is outlined into a
// private function of an iteration range [lo, hi) returning a status; the loop becomes one
// call over all its iterations, flagged with the estimated work of one iteration. Constants
// are cloned into the function; everything else from outside becomes an argument.
func.func @big(%x: memref<1000000xf32>, %out: memref<1000000xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<1000000xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %out[%i] : memref<1000000xf32>
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @big(
// CHECK-NOT:     scf.for
// CHECK:         %[[N:.*]] = arith.constant 1000000 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.constant 1000000 : index
// CHECK-NEXT:    %{{.*}} = func.call @big__par0(%x, %s, %out, %[[ZERO]], %[[TRIPS]]) {tj.parallel_work = 3 : i64} : (memref<1000000xf32>, f32, memref<1000000xf32>, index, index) -> i32
// CHECK-NEXT:    func.return
// CHECK:       func.func private @big__par0(%[[X:.*]]: memref<1000000xf32>, %[[S:.*]]: f32, %[[OUT:.*]]: memref<1000000xf32>, %lo: index, %hi: index) -> i32 {
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %lo to %hi step %[[ONE]] {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[I]]] : memref<1000000xf32>
// CHECK-NEXT:      %[[W:.*]] = arith.mulf %[[V]], %[[S]] : f32
// CHECK-NEXT:      memref.store %[[W]], %[[OUT]][%[[I]]] : memref<1000000xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[OK:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    func.return %[[OK]] : i32

// Too little work for threads: left alone, and the mark is dropped.
func.func @small(%x: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<1000xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<1000xf32>
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @small(
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK-NOT:     tj.parallel
// CHECK-NOT:     func.call
// CHECK:         func.return

// A dynamic trip count is decided at run time: outlined. A loop not starting at 0 with step 1
// is counted in iterations: the body rebuilds its induction variable as lb + k * step, and
// the call passes ceil(max(ub - lb, 0) / step).
func.func @strided(%x: memref<?xf32>, %lb: index, %ub: index) {
  %c4 = arith.constant 4 : index
  scf.for %i = %lb to %ub step %c4 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %x[%i] : memref<?xf32>
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @strided(
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[SPAN:.*]] = arith.subi %ub, %lb : index
// CHECK-NEXT:    %[[POS:.*]] = arith.maxsi %[[SPAN]], %[[ZERO]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[UP:.*]] = arith.addi %[[POS]], %c4 : index
// CHECK-NEXT:    %[[ROUND:.*]] = arith.subi %[[UP]], %[[ONE]] : index
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.divui %[[ROUND]], %c4 : index
// CHECK-NEXT:    %{{.*}} = func.call @strided__par0(%x, %lb, %[[ZERO]], %[[TRIPS]]) {tj.parallel_work = 2 : i64}
// CHECK:       func.func private @strided__par0(%[[X:.*]]: memref<?xf32>, %[[LB:.*]]: index, %lo: index, %hi: index) -> i32 {
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[K:.*]] = %lo to %hi step %{{.*}} {
// CHECK-NEXT:      %[[SCALED:.*]] = arith.muli %[[K]], %[[STEP]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[LB]], %[[SCALED]] : index
// CHECK-NEXT:      %{{.*}} = memref.load %[[X]][%[[I]]] : memref<?xf32>

// A loop that calls a function (or asserts) is never outlined: worker threads must not
// reach Python, and a failing check could not stop the other chunks.
func.func private @callee(f32)
func.func @calls(%x: memref<1000000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<1000000xf32>
    func.call @callee(%v) : (f32) -> ()
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @calls(
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      func.call @callee

// A matmul nest as tile-matmul marks it: 2 row blocks (fewer than MIN_TRIPS) holding 32
// column panels: the inner marked loop is outlined, and the register tile %acc, a stack
// buffer used only inside it, is cloned into the function (one per thread).
func.func @tiles(%c: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c100000 = arith.constant 100000 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloca() {alignment = 64 : i64} : memref<6x16xf32>
  scf.for %ic = %c0 to %c2 step %c1 {
    scf.for %jb = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c100000 step %c1 {
        memref.store %zero, %acc[%c0, %c0] : memref<6x16xf32>
        %v = memref.load %acc[%c0, %c0] : memref<6x16xf32>
        memref.store %v, %c[%ic, %jb] : memref<512x512xf32>
      }
    } {tj.parallel}
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @tiles(
// CHECK:         scf.for %[[IC:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:      %{{.*}} = arith.constant 32 : index
// CHECK-NEXT:      %{{.*}} = func.call @tiles__par0(%c, %[[IC]], %{{.*}}, %{{.*}}) {tj.parallel_work = 300000 : i64}
// CHECK-NEXT:    }
// CHECK:       func.func private @tiles__par0(
// CHECK:         memref.alloca() alignment = 64 : memref<6x16xf32>
// CHECK:         scf.for

// With 4 row blocks or more, the row-block loop itself is outlined: one fork per call.
func.func @rows(%c: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c100000 = arith.constant 100000 : index
  %zero = arith.constant 0.0 : f32
  scf.for %ic = %c0 to %c8 step %c1 {
    scf.for %jb = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c100000 step %c1 {
        memref.store %zero, %c[%ic, %jb] : memref<512x512xf32>
      }
    } {tj.parallel}
  } {tj.parallel}
  func.return
}

// CHECK-LABEL: func.func @rows(
// CHECK:         %{{.*}} = func.call @rows__par0(%c, %{{.*}}, %{{.*}}) {tj.parallel_work = 3200000 : i64}
// CHECK-NEXT:    func.return
// CHECK:       func.func private @rows__par0(
// CHECK:         scf.for %{{.*}} = %lo to %hi step
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c32 step %c1 {
// CHECK-NOT:       func.call
