// extrema-nan-flags (passes/extrema_nan_flags.py): a loop-carried float max/min (NaN-propagating
// maximumf/minimumf) becomes maxnumf/minnumf with fastmath<nnan,nsz> beside an i1 flag, set when
// the initial value or any element is NaN; after the loop the flag selects NaN. Other carried
// values keep their place; an accumulator read by anything but the max is left alone.
// RUN: tracejit-opt %s -p extrema-nan-flags | filecheck %s

builtin.module {
  func.func @max(%a: memref<1000xf32>, %out: memref<f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    %init = memref.load %out[] : memref<f32>
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %a[%i] : memref<1000xf32>
      %next = arith.maximumf %acc, %x : f32
      scf.yield %next : f32
    }
    memref.store %m, %out[] : memref<f32>
    func.return
  }

  func.func @min_and_sum(%a: memref<1000xf64>, %lo: memref<f64>, %total: memref<f64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    %inf = arith.constant 0x7FF0000000000000 : f64
    %zero = arith.constant 0.0 : f64
    %m, %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %inf, %sum = %zero) -> (f64, f64) {
      %x = memref.load %a[%i] : memref<1000xf64>
      %next = arith.minimumf %x, %acc : f64
      %plus = arith.addf %sum, %x : f64
      scf.yield %next, %plus : f64, f64
    }
    memref.store %m, %lo[] : memref<f64>
    memref.store %s, %total[] : memref<f64>
    func.return
  }

  // The accumulator is also stored each trip: it may not become poison, so left alone.
  func.func @running_max(%a: memref<1000xf32>, %out: memref<1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    %init = arith.constant 0xFF800000 : f32
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %a[%i] : memref<1000xf32>
      %next = arith.maximumf %acc, %x : f32
      memref.store %next, %out[%i] : memref<1000xf32>
      scf.yield %next : f32
    }
    func.return
  }
}

// CHECK:       func.func @max(%a: memref<1000xf32>, %out: memref<f32>) {
// CHECK:         %init = memref.load %out[] : memref<f32>
// CHECK-NEXT:    %initial_nan = arith.cmpf uno, %init, %init : f32
// CHECK-NEXT:    %[[MAX:.*]], %[[SEEN:.*]] = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %nan_seen = %initial_nan) -> (f32, i1) {
// CHECK-NEXT:      %x = memref.load %a[%i] : memref<1000xf32>
// CHECK-NEXT:      %isnan = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:      %next = arith.maxnumf %acc, %x fastmath<nnan,nsz> : f32
// CHECK-NEXT:      %[[NEXT_SEEN:.*]] = arith.ori %nan_seen, %isnan : i1
// CHECK-NEXT:      scf.yield %next, %[[NEXT_SEEN]] : f32, i1
// CHECK-NEXT:    }
// CHECK-NEXT:    %nan = arith.constant 0x7fc00000 : f32
// CHECK-NEXT:    %m = arith.select %[[SEEN]], %nan, %[[MAX]] : f32
// CHECK-NEXT:    memref.store %m, %out[] : memref<f32>

// The min's operands keep their order; the sum beside it is untouched.
// CHECK:       func.func @min_and_sum(
// CHECK:         %initial_nan = arith.cmpf uno, %inf, %inf : f64
// CHECK-NEXT:    %[[MIN:.*]], %s, %[[SEEN:.*]] = scf.for {{.*}} iter_args(%acc = %inf, %sum = %zero, %nan_seen = %initial_nan) -> (f64, f64, i1) {
// CHECK:           %next = arith.minnumf %x, %acc fastmath<nnan,nsz> : f64
// CHECK:           %plus = arith.addf %sum, %x : f64
// CHECK-NEXT:      scf.yield %next, %plus, %{{.*}} : f64, f64, i1
// CHECK:         %m = arith.select %[[SEEN]], %nan, %[[MIN]] : f64
// CHECK-NEXT:    memref.store %m, %lo[] : memref<f64>
// CHECK-NEXT:    memref.store %s, %total[] : memref<f64>

// CHECK:       func.func @running_max(
// CHECK-NOT:     maxnumf
// CHECK:         %next = arith.maximumf %acc, %x : f32
