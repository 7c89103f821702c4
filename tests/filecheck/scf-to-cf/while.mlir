// RUN: tracejit-opt %s -p scf-to-cf | filecheck %s

// sum of 1..n with two loop-carried values: the before region becomes the condition block,
// the after region the body block, and the results arguments of the exit block.
func.func @sum_to(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c1, %s = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi sle, %i, %n : i64
    scf.condition(%go) %i, %s : i64, i64
  } do {
  ^bb0(%i2: i64, %s2: i64):
    %s3 = arith.addi %s2, %i2 : i64
    %i3 = arith.addi %i2, %c1 : i64
    scf.yield %i3, %s3 : i64, i64
  }
  func.return %r#1 : i64
}

// No loop-carried values: the loop state lives in memory.
func.func @count(%m: memref<1xi64>, %limit: i64) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  scf.while () : () -> () {
    %v = memref.load %m[%c0] : memref<1xi64>
    %go = arith.cmpi slt, %v, %limit : i64
    scf.condition(%go)
  } do {
    %v2 = memref.load %m[%c0] : memref<1xi64>
    %v3 = arith.addi %v2, %one : i64
    memref.store %v3, %m[%c0] : memref<1xi64>
    scf.yield
  }
  func.return
}

// CHECK-LABEL: func.func @sum_to(%n: i64) -> i64 {
// CHECK-NEXT:    %c0 = arith.constant 0 : i64
// CHECK-NEXT:    %c1 = arith.constant 1 : i64
// CHECK-NEXT:    cf.br ^[[BEFORE:bb[0-9]+]](%c1, %c0 : i64, i64)
// CHECK-NEXT:  ^[[BEFORE]](%i: i64, %s: i64):
// CHECK-NEXT:    %go = arith.cmpi sle, %i, %n : i64
// CHECK-NEXT:    cf.cond_br %go, ^[[AFTER:bb[0-9]+]](%i, %s : i64, i64), ^[[EXIT:bb[0-9]+]](%i, %s : i64, i64)
// CHECK-NEXT:  ^[[AFTER]](%i2: i64, %s2: i64):
// CHECK-NEXT:    %s3 = arith.addi %s2, %i2 : i64
// CHECK-NEXT:    %i3 = arith.addi %i2, %c1 : i64
// CHECK-NEXT:    cf.br ^[[BEFORE]](%i3, %s3 : i64, i64)
// CHECK-NEXT:  ^[[EXIT]]({{%.*}}: i64, [[SUM:%.*]]: i64):
// CHECK-NEXT:    func.return [[SUM]] : i64
// CHECK-NEXT:  }

// CHECK-LABEL: func.func @count(%m: memref<1xi64>, %limit: i64) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %one = arith.constant 1 : i64
// CHECK-NEXT:    cf.br ^[[BEFORE:bb[0-9]+]]
// CHECK-NEXT:  ^[[BEFORE]]:
// CHECK-NEXT:    %v = memref.load %m[%c0] : memref<1xi64>
// CHECK-NEXT:    %go = arith.cmpi slt, %v, %limit : i64
// CHECK-NEXT:    cf.cond_br %go, ^[[AFTER:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[AFTER]]:
// CHECK-NEXT:    %v2 = memref.load %m[%c0] : memref<1xi64>
// CHECK-NEXT:    %v3 = arith.addi %v2, %one : i64
// CHECK-NEXT:    memref.store %v3, %m[%c0] : memref<1xi64>
// CHECK-NEXT:    cf.br ^[[BEFORE]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NOT:   scf.
