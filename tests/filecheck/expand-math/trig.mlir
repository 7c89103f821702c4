// RUN: tracejit-opt %s -p "expand-math{trig=true}" | filecheck %s
// RUN: tracejit-opt %s -p expand-math | filecheck %s --check-prefix=DEFAULT

// By default sin and cos stay libm calls (exact for every argument):
// DEFAULT: math.sin
// DEFAULT: math.cos

// sin: n = round(x 2/pi), r = x - n pi/2 with four fma steps, quadrant n mod 4 in f64,
// sin/cos polynomials chosen by select; |x| beyond the documented limit gives NaN.
func.func @sin_f32(%x: f32) -> f32 {
  %r = math.sin %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @sin_f32
// CHECK-NOT:     math.sin
// CHECK:         %[[N:.*]] = math.roundeven
// CHECK:         %[[M:.*]] = arith.negf %[[N]] : f64
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.floor
// CHECK:         arith.constant 0x7ff8000000000000 : f64
// CHECK:         arith.truncf
// CHECK-NOT:     math.sin

func.func @cos_f64(%x: f64) -> f64 {
  %r = math.cos %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @cos_f64
// CHECK-NOT:     math.cos
// CHECK:         math.roundeven
// CHECK:         math.floor
// CHECK:         arith.select
// CHECK-NOT:     math.cos
// CHECK:         func.return

// tanh: -t / (2 + t) with t = expm1(-2|x|), the sign copied back.
func.func @tanh_f32(%x: f32) -> f32 {
  %r = math.tanh %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT:     math.tanh
// CHECK-NOT:     arith.extf
// CHECK:         math.absf %x : f32
// CHECK:         arith.divf
// CHECK:         %r = math.copysign %{{.*}}, %x : f32
// CHECK-NOT:     math.tanh
