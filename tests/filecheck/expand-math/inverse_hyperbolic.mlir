// RUN: tracejit-opt %s -p expand-math | filecheck %s
// RUN: tracejit-opt %s -p "expand-math{trig=false}" | filecheck %s --check-prefix=NOTRIG

// trig=false leaves the whole trigonometric family to libm:
// NOTRIG: math.atan %x : f64
// NOTRIG: math.atan2 %y, %x : f32
// NOTRIG: math.asin %x : f32
// NOTRIG: math.acos %x : f64
// NOTRIG: math.tan %x : f64
// NOTRIG: math.sinh %x : f32
// NOTRIG: math.cosh %x : f64

// atan: three ranges of |x| (t = |x|, (|x| - 1)/(|x| + 1), -1/|x|) chosen by select, one
// division, the odd polynomial, offset 0 / pi/4 / pi/2 as hi + lo, the sign copied back.
func.func @atan_f64(%x: f64) -> f64 {
  %r = math.atan %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @atan_f64
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x : f64
// CHECK:         %[[LOW:.*]] = arith.cmpf ole, %[[AX]], %{{.*}} : f64
// CHECK:         %[[HIGH:.*]] = arith.cmpf ogt, %[[AX]], %{{.*}} : f64
// CHECK:         %[[T:.*]] = arith.divf
// CHECK-NOT:     arith.divf
// CHECK:         arith.constant 1.5707963267948966 : f64
// CHECK:         arith.constant 0.78539816339744828 : f64
// CHECK:         %r = math.copysign %{{.*}}, %x : f64
// CHECK-NOT:     math.atan

// atan2 (f32 in f64): |x| = |y| = 1 for two infinities, |x| = 1 for y = 0, atan's ranges
// on |y|/|x|, pi - r for x < 0 (sign bit, so -0 too), the sign of y, NaN if either is.
func.func @atan2_f32(%y: f32, %x: f32) -> f32 {
  %r = math.atan2 %y, %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @atan2_f32
// CHECK:         arith.extf %y : f32 to f64
// CHECK:         arith.extf %x : f32 to f64
// CHECK-NOT:     0x4310
// CHECK:         arith.andi
// CHECK:         arith.divf
// CHECK:         arith.constant 3.1415926535897931 : f64
// CHECK:         arith.constant 2.3561944901923448 : f64
// CHECK:         math.copysign
// CHECK:         arith.cmpf uno
// CHECK:         %r = arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT:     math.atan2

// atan2 on f64 first scales pairs above 2^1000 by 2^-64 (|y| + |x| must not overflow).
func.func @atan2_f64(%y: f64, %x: f64) -> f64 {
  %r = math.atan2 %y, %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @atan2_f64
// CHECK:         arith.constant 1.0715086071862673e+301 : f64
// CHECK:         arith.constant 5.4210108624275222e-20 : f64
// CHECK-NOT:     math.atan2
// CHECK:         func.return

// asin: |x| <= 1/2 the odd polynomial in x; above, in s = sqrt((1 - |x|)/2): pi/2 - 2p.
func.func @asin_f32(%x: f32) -> f32 {
  %r = math.asin %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @asin_f32
// CHECK:         %[[AX:.*]] = math.absf
// CHECK:         %[[BIG:.*]] = arith.cmpf ogt, %[[AX]], %{{.*}} : f64
// CHECK:         math.sqrt
// CHECK:         arith.constant 1.5707963267948966 : f64
// CHECK:         math.copysign
// CHECK-NOT:     math.asin

// acos: pi/2 - asin x, 2p or pi - 2p by select.
func.func @acos_f64(%x: f64) -> f64 {
  %r = math.acos %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @acos_f64
// CHECK:         math.sqrt
// CHECK:         arith.constant 3.1415926535897931 : f64
// CHECK:         %r = arith.select
// CHECK-NOT:     math.acos

// tan: sin's reduction, s/c or -c/s (one division), the libm branch for huge |x|.
func.func @tan_f64(%x: f64) -> f64 {
  %r = math.tan %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @tan_f64
// CHECK:         math.roundeven
// CHECK:         arith.divf
// CHECK-NOT:     arith.divf
// CHECK:         %r = scf.if
// CHECK-NEXT:      math.tan %x {tj.slow_path} : f64

// sinh: one exp reduction of |x| and two polynomials (e^r and e^-r); below 1 from
// E = expm1|x| as (E + E/(E + 1))/2, else 2^(k-1) (e^r - 2^-2k e^-r); sign copied back.
func.func @sinh_f32(%x: f32) -> f32 {
  %r = math.sinh %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @sinh_f32
// CHECK:         math.roundeven
// CHECK:         arith.divf
// CHECK:         arith.subf
// CHECK:         arith.cmpf uno
// CHECK:         math.copysign
// CHECK:         %r = arith.truncf
// CHECK-NOT:     math.sinh

func.func @cosh_f64(%x: f64) -> f64 {
  %r = math.cosh %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @cosh_f64
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x
// CHECK-NEXT:    %[[CAP:.*]] = arith.constant 7.115000e+02 : f64
// CHECK-NEXT:    arith.cmpf ogt, %[[AX]], %[[CAP]] : f64
// CHECK:         math.roundeven
// CHECK-NOT:     arith.divf
// CHECK:         %r = arith.select
// CHECK-NOT:     math.cosh
