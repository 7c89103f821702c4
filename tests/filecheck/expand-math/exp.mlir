// RUN: tracejit-opt %s -p expand-math | filecheck %s

// exp: clamp, Cody-Waite x = k ln2 + r (ln2 in a hi/lo pair), Remez polynomial by fma,
// 2^k as two exponent-bit factors. The exp family and tanh run natively in f32 (i32 bits).
func.func @exp_f32(%x: f32) -> f32 {
  %r = math.exp %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT:     math.exp
// CHECK-NOT:     arith.extf
// CHECK:         arith.cmpf olt, %x
// CHECK:         arith.select
// CHECK:         math.roundeven %{{.*}} : f32
// CHECK:         math.fma %{{.*}}, %{{.*}} : f32
// CHECK:         arith.bitcast %{{.*}} : i32 to f32
// CHECK:         %r = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     math.exp
// CHECK:         func.return %r : f32

// f64 stays in f64 (no extf/truncf).
func.func @exp_f64(%x: f64) -> f64 {
  %r = math.exp %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @exp_f64
// CHECK-NOT:     arith.extf
// CHECK-NOT:     math.exp
// CHECK:         math.roundeven
// CHECK:         arith.shli
// CHECK-NOT:     math.exp
// CHECK:         func.return

// exp2: k = round(x), the polynomial at (x - k) ln2.
func.func @exp2_f32(%x: f32) -> f32 {
  %r = math.exp2 %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @exp2_f32
// CHECK-NOT:     math.exp2
// CHECK:         %[[K:.*]] = math.roundeven %{{.*}} : f32
// CHECK:         arith.subf %{{.*}}, %[[K]] : f32
// CHECK-NOT:     math.exp2
// CHECK:         func.return

// expm1: 2^k expm1(r) + (2^k - 1) in one fma; x == 0 passed through (keeps -0).
func.func @expm1_f64(%x: f64) -> f64 {
  %r = math.expm1 %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @expm1_f64
// CHECK-NOT:     math.expm1
// CHECK:         arith.cmpi sgt
// CHECK:         math.fma
// CHECK:         arith.cmpf oeq, %x
// CHECK-NEXT:    %r = arith.select %{{.*}}, %x, %{{.*}} : f64
// CHECK-NOT:     math.expm1

// tanh: t = expm1(-2|x|) and 1 + u = 1 + e^(-2|x|) from one exp reduction (no error term),
// one fma each; then one division, whose magnitude takes the sign of x.
func.func @tanh_f32(%x: f32) -> f32 {
  %r = math.tanh %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT:     math.tanh
// CHECK:         %[[AX:.*]] = math.absf %x : f32
// CHECK:         arith.mulf %[[AX]], %{{.*}} : f32
// CHECK:         math.roundeven %{{.*}} : f32
// CHECK:         %[[E:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[S:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[SM1:.*]] = arith.subf %[[S]], %[[ONE]] : f32
// CHECK-NEXT:    %[[T:.*]] = math.fma %[[E]], %[[S]], %[[SM1]] : f32
// CHECK-NEXT:    %[[SP1:.*]] = arith.addf %[[S]], %[[ONE]] : f32
// CHECK-NEXT:    %[[D:.*]] = math.fma %[[E]], %[[S]], %[[SP1]] : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[T]], %[[D]] : f32
// CHECK-NEXT:    %r = math.copysign %[[Q]], %x : f32
// CHECK-NEXT:    func.return %r : f32
