// RUN: tracejit-opt %s -p expand-math | filecheck %s

// Expansions in one block share their constants: the second exp reuses the first one's
// log2(e) (created before the first exp), an exp in a nested block gets its own.
func.func @two_exps(%x: f32, %y: f32, %m: memref<4xf32>) -> f32 {
  %a = math.exp %x : f32
  %b = math.exp %y : f32
  %s = arith.addf %a, %b : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %m[%i] : memref<4xf32>
    %e = math.exp %v : f32
    memref.store %e, %m[%i] : memref<4xf32>
  }
  func.return %s : f32
}
// CHECK-LABEL: func.func @two_exps
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         arith.mulf %{{.*}}, %[[LOG2E]] : f32
// CHECK-NOT:     arith.constant 1.44269502 : f32
// CHECK:         arith.mulf %{{.*}}, %[[LOG2E]] : f32
// CHECK-NOT:     arith.constant 1.44269502 : f32
// CHECK:         scf.for
// CHECK:           %[[INNER:.*]] = arith.constant 1.44269502 : f32
// CHECK:           arith.mulf %{{.*}}, %[[INNER]] : f32
// CHECK-NOT:     arith.constant 1.44269502 : f32
// CHECK:         func.return
