// RUN: tracejit-opt %s -p expand-math | filecheck %s

// erf: |x| + |x| P(x^2) below the split, 1 - e^(-x^2) G(1/|x|) above (exp expanded inline).
func.func @erf_f64(%x: f64) -> f64 {
  %r = math.erf %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @erf_f64
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.exp
// CHECK:         math.absf %x
// CHECK:         arith.divf
// CHECK:         math.roundeven
// CHECK:         math.copysign
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.exp

// powf on f32: exp(y log|x|) in f64 plus the C99 special cases, all selects.
func.func @powf_f32(%x: f32, %y: f32) -> f32 {
  %r = math.powf %x, %y : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @powf_f32
// CHECK-NOT:     math.powf
// CHECK:         arith.extf %x
// CHECK:         arith.extf %y
// CHECK:         math.floor
// CHECK:         arith.select
// CHECK:         arith.truncf
// CHECK-NOT:     math.powf

// powf on f64 is left alone (documented: it needs double-double log/exp).
func.func @powf_f64(%x: f64, %y: f64) -> f64 {
  %r = math.powf %x, %y : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @powf_f64
// CHECK-NEXT:    %r = math.powf %x, %y : f64

// Other math ops and types are not touched.
func.func @untouched(%x: f32, %h: f16) -> (f32, f16) {
  %a = math.cbrt %x : f32
  %b = math.exp %h : f16
  func.return %a, %b : f32, f16
}
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %a = math.cbrt %x : f32
// CHECK-NEXT:    %b = math.exp %h : f16
