// RUN: tracejit-opt %s -p expand-math | filecheck %s
// RUN: tracejit-opt %s -p "expand-math{trig=false}" | filecheck %s --check-prefix=NOTRIG

// With trig=false sin and cos stay libm calls:
// NOTRIG: math.sin %x : f32
// NOTRIG: math.cos %x : f64

// sin: n = round(x 2/pi), r = x - n pi/2 with four fma steps, quadrant n mod 4 in f64,
// sin/cos polynomials chosen by select; finite |x| beyond SIN_COS_LIMIT branches (scf.if)
// to the libm function, marked tj.slow_path so it is not expanded again.
func.func @sin_f32(%x: f32) -> f32 {
  %r = math.sin %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @sin_f32
// CHECK:         %[[W:.*]] = arith.extf %x : f32 to f64
// CHECK:         %[[N:.*]] = math.roundeven
// CHECK:         %[[M:.*]] = arith.negf %[[N]] : f64
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.fma %[[M]]
// CHECK:         math.floor
// CHECK:         %[[FAST:.*]] = arith.select %{{.*}}, %[[W]], %{{.*}} : f64
// CHECK-NEXT:    %[[ABS:.*]] = math.absf %[[W]] : f64
// CHECK-NEXT:    %[[LIMIT:.*]] = arith.constant 0x4310000000000000 : f64
// CHECK-NEXT:    %[[BIG:.*]] = arith.cmpf ogt, %[[ABS]], %[[LIMIT]] : f64
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f64
// CHECK-NEXT:    %[[HUGE:.*]] = arith.andi %[[BIG]], %[[FINITE]] : i1
// CHECK-NEXT:    %[[V:.*]] = scf.if %[[HUGE]] -> (f64) {
// CHECK-NEXT:      %[[SLOW:.*]] = math.sin %[[W]] {tj.slow_path} : f64
// CHECK-NEXT:      scf.yield %[[SLOW]] : f64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[FAST]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = arith.truncf %[[V]] : f64 to f32
// CHECK-NOT:     math.sin

func.func @cos_f64(%x: f64) -> f64 {
  %r = math.cos %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @cos_f64
// CHECK:         math.roundeven
// CHECK:         math.floor
// CHECK:         arith.select
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
