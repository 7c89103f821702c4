// RUN: tracejit-opt %s -p dedupe-loop-nests | filecheck %s
// RUN: tracejit-opt %s -p dedupe-loop-nests,dedupe-loop-nests | filecheck %s --check-prefix=AGAIN

// Two nests doing the same on other buffers (two layers of an unrolled network): outlined
// once into a private function of the buffers, the scalar and an iteration range, and both
// replaced by its call, flagged tj.outlined (a plain call in the code generator). The
// constant is cloned into the function, as parallelize clones it.
func.func @layers(%x: memref<64xf64>, %y: memref<64xf64>, %a: memref<64xf64>, %b: memref<64xf64>, %s: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.addf %w, %s : f64
    memref.store %z, %y[%i] : memref<64xf64>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.addf %w, %s : f64
    memref.store %z, %b[%i] : memref<64xf64>
  }
  func.return
}

// CHECK-LABEL: func.func @layers(
// CHECK-NOT:     scf.for
// CHECK:         %two = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %{{.*}} = func.call @layers__nest0(%x, %s, %y, %[[ZERO]], %[[TRIPS]]) {tj.outlined} : (memref<64xf64>, f64, memref<64xf64>, index, index) -> i32
// CHECK:         %{{.*}} = func.call @layers__nest0(%a, %s, %b, %{{.*}}, %{{.*}}) {tj.outlined}
// CHECK-NEXT:    func.return
// CHECK:       func.func private @layers__nest0(%[[IN:.*]]: memref<64xf64>, %[[S:.*]]: f64, %[[OUT:.*]]: memref<64xf64>, %lo: index, %hi: index) -> i32 {
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %lo to %hi step %[[ONE]] {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[IN]][%[[I]]] : memref<64xf64>
// CHECK-NEXT:      %[[W:.*]] = arith.mulf %[[V]], %[[TWO]] : f64
// CHECK-NEXT:      %[[Z:.*]] = arith.addf %[[W]], %[[S]] : f64
// CHECK-NEXT:      memref.store %[[Z]], %[[OUT]][%[[I]]] : memref<64xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[OK:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    func.return %[[OK]] : i32

// Run again, the pass finds nothing more to share, and never reuses a name.
// AGAIN-COUNT-2: func.call @layers__nest0(
// AGAIN-NOT:     __nest1

// Nests that differ only in a float constant (a Python scalar per layer: a step size, a
// scale) are shared too: the constant becomes an argument of the function, and each call
// passes its own.
func.func @scaled(%x: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f64
  %three = arith.constant 3.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.addf %w, %w : f64
    memref.store %z, %y[%i] : memref<64xf64>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %y[%i] : memref<64xf64>
    %w = arith.mulf %v, %three : f64
    %z = arith.addf %w, %w : f64
    memref.store %z, %x[%i] : memref<64xf64>
  }
  func.return
}

// CHECK-LABEL: func.func @scaled(
// CHECK-NOT:     scf.for
// CHECK:         func.call @scaled__nest0(%x, %two, %y, %{{.*}}, %{{.*}}) {tj.outlined}
// CHECK:         func.call @scaled__nest0(%y, %three, %x, %{{.*}}, %{{.*}}) {tj.outlined}
// CHECK:       func.func private @scaled__nest0(%{{.*}}: memref<64xf64>, %[[K:.*]]: f64, %{{.*}}: memref<64xf64>, %lo: index, %hi: index) -> i32 {
// CHECK:           arith.mulf %{{.*}}, %[[K]] : f64

// Not the same nest (as each other, nor as @scaled's: the pass looks at the whole module):
// another trip count (an index constant stays part of the kind: LLVM
// needs it), or one buffer read and written where the first nest reads one and writes
// another. Each is left where it is.
func.func @differ(%x: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.subf %w, %v : f64
    memref.store %z, %y[%i] : memref<64xf64>
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %x[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.subf %w, %v : f64
    memref.store %z, %y[%i] : memref<64xf64>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf64>
    %w = arith.mulf %v, %two : f64
    %z = arith.subf %w, %v : f64
    memref.store %z, %x[%i] : memref<64xf64>
  }
  func.return
}

// CHECK-LABEL: func.func @differ(
// CHECK:         %two = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    scf.for %{{.*}} = %c0 to %c64
// CHECK:           memref.store %{{.*}}, %y
// CHECK:         scf.for %{{.*}} = %c0 to %c32
// CHECK:         scf.for %{{.*}} = %c0 to %c64
// CHECK:           memref.store %{{.*}}, %x
// CHECK-NOT:     func.call
// CHECK:         func.return

// Too little work to pay for a call (4 iterations of 3 ops): compiled twice, where they are.
func.func @tiny(%x: memref<4xf64>, %y: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %w = arith.addf %v, %v : f64
    memref.store %w, %y[%i] : memref<4xf64>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %y[%i] : memref<4xf64>
    %w = arith.addf %v, %v : f64
    memref.store %w, %x[%i] : memref<4xf64>
  }
  func.return
}

// CHECK-LABEL: func.func @tiny(
// CHECK-NOT:     func.call
// CHECK-COUNT-2: scf.for

// Inside a staged while loop the same two nests run once per trip, and a call per trip
// would cost them a few percent: below MIN_NEST_WORK_IN_LOOP they stay where they are.
func.func @in_while(%x: memref<64xf64>, %y: memref<64xf64>, %s: f64, %n: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %end = scf.while (%t = %zero) : (i64) -> i64 {
    %more = arith.cmpi slt, %t, %n : i64
    scf.condition(%more) %t : i64
  } do {
  ^bb0(%t: i64):
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i] : memref<64xf64>
      %w = arith.mulf %v, %two : f64
      %z = arith.addf %w, %s : f64
      memref.store %z, %y[%i] : memref<64xf64>
    }
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %y[%i] : memref<64xf64>
      %w = arith.mulf %v, %two : f64
      %z = arith.addf %w, %s : f64
      memref.store %z, %x[%i] : memref<64xf64>
    }
    %next = arith.addi %t, %one : i64
    scf.yield %next : i64
  }
  func.return
}

// CHECK-LABEL: func.func @in_while(
// CHECK-NOT:     func.call
// CHECK-COUNT-2: scf.for
// CHECK-NOT:     func.call
// CHECK:         func.return
