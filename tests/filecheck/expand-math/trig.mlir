// RUN: tracejit-opt %s -p expand-math | filecheck %s
// RUN: tracejit-opt %s -p "expand-math{trig=false}" | filecheck %s --check-prefix=NOTRIG

// With trig=false sin and cos stay libm calls:
// NOTRIG: math.sin %x : f32
// NOTRIG: math.cos %x : f64

// sin (f32 natively): n = round(x 2/pi), r = x - n pi/2 with three fma steps (pi/2 in
// f32 pieces), quadrant n mod 4, sin/cos polynomials chosen by select; finite |x| beyond
// SIN_COS_LIMIT (2^17 for f32) branches (scf.if) to the libm function, marked
// tj.slow_path so it is not expanded again.
func.func @sin_f32(%x: f32) -> f32 {
  %r = math.sin %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @sin_f32
// CHECK-NOT:     arith.extf
// CHECK:         %[[N:.*]] = math.roundeven
// CHECK:         %[[M:.*]] = arith.negf %[[N]] : f32
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK-NOT:     math.fma %[[M]]
// CHECK:         math.floor
// CHECK:         %[[FAST:.*]] = arith.select %{{.*}}, %x, %{{.*}} : f32
// CHECK-NEXT:    %[[ABS:.*]] = math.absf %x : f32
// CHECK-NEXT:    %[[LIMIT:.*]] = arith.constant 1.310720e+05 : f32
// CHECK-NEXT:    %[[BIG:.*]] = arith.cmpf ogt, %[[ABS]], %[[LIMIT]] : f32
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT:    %[[HUGE:.*]] = arith.andi %[[BIG]], %[[FINITE]] : i1
// CHECK-NEXT:    %r = scf.if %[[HUGE]] -> (f32) {
// CHECK-NEXT:      %[[SLOW:.*]] = math.sin %x {tj.slow_path} : f32
// CHECK-NEXT:      scf.yield %[[SLOW]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[FAST]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : f32

func.func @cos_f64(%x: f64) -> f64 {
  %r = math.cos %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @cos_f64
// CHECK:         math.roundeven
// CHECK-COUNT-4: math.fma
// CHECK:         math.floor
// CHECK:         arith.select
// CHECK:         arith.constant 0x42F0000000000000 : f64
// CHECK:         %r = scf.if
// CHECK-NEXT:      math.cos %x {tj.slow_path} : f64
// CHECK:         func.return %r : f64

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
