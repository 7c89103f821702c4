// RUN: tracejit-opt %s -p expand-math | filecheck %s

// log: x = 2^e (1 + f) through the i64 view (subnormals scaled by 2^54 first),
// s = f / (2 + f), Remez polynomial in s^2, then NaN / -inf / +inf fixed up by selects.
func.func @log_f32(%x: f32) -> f32 {
  %r = math.log %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @log_f32
// CHECK-NOT:     math.log
// CHECK:         arith.extf %x : f32 to f64
// CHECK:         %[[B:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK:         arith.shrsi
// CHECK:         arith.divf
// CHECK:         math.fma
// CHECK:         arith.cmpf uno
// CHECK:         arith.truncf
// CHECK-NOT:     math.log

func.func @log_f64(%x: f64) -> f64 {
  %r = math.log %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @log_f64
// CHECK-NOT:     math.log
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK:         arith.divf
// CHECK-NOT:     math.log
// CHECK:         func.return

func.func @log2_f64(%x: f64) -> f64 {
  %r = math.log2 %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @log2_f64
// CHECK-NOT:     math.log2
// CHECK:         arith.divf
// CHECK-NOT:     math.log2
// CHECK:         func.return

func.func @log10_f32(%x: f32) -> f32 {
  %r = math.log10 %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @log10_f32
// CHECK-NOT:     math.log10
// CHECK:         arith.divf
// CHECK-NOT:     math.log10
// CHECK:         arith.truncf

// log1p: u = 1 + x and the exact rounding error c of that sum, divided by u.
func.func @log1p_f64(%x: f64) -> f64 {
  %r = math.log1p %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @log1p_f64
// CHECK-NOT:     math.log1p
// CHECK:         %[[U:.*]] = arith.addf %{{.*}}, %x : f64
// CHECK:         arith.cmpf olt, %x
// CHECK:         arith.divf %{{.*}}, %[[U]] : f64
// CHECK-NOT:     math.log1p
// CHECK:         func.return
