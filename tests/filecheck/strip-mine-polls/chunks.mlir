// strip-mine-polls: a staged loop (state in buffers, the Ctrl-C poll first in its
// condition) becomes a polling loop of chunks of 1,024 trips; the chunk evaluates the
// original condition only while it lasts, carries its trip count, and the outer loop goes
// on while a chunk ran full. A loop without the poll (an element loop) and one carrying
// SSA values stay as they are.
// RUN: tracejit-opt %s -p strip-mine-polls | filecheck %s

builtin.module {
  func.func private @tracejit_interrupted() -> i1
  func.func @count(%n: memref<i64>, %i: memref<i64>) {
    scf.while () : () -> () {
      %stop = func.call @tracejit_interrupted() : () -> i1
      %true = arith.constant true
      %go = arith.xori %stop, %true : i1
      cf.assert %go, "KeyboardInterrupt: a staged loop of the compiled function was interrupted"
      %a = memref.load %i[] : memref<i64>
      %b = memref.load %n[] : memref<i64>
      %c = arith.cmpi slt, %a, %b : i64
      scf.condition(%c)
    } do {
      %a = memref.load %i[] : memref<i64>
      %one = arith.constant 1 : i64
      %a1 = arith.addi %a, %one : i64
      memref.store %a1, %i[] : memref<i64>
      scf.yield
    }
    %z = arith.constant 0 : i64
    %r = scf.while (%x = %z) : (i64) -> i64 {
      %stop = func.call @tracejit_interrupted() : () -> i1
      %true = arith.constant true
      %go = arith.xori %stop, %true : i1
      cf.assert %go, "KeyboardInterrupt: a staged loop of the compiled function was interrupted"
      %b = memref.load %n[] : memref<i64>
      %c = arith.cmpi slt, %x, %b : i64
      scf.condition(%c) %x : i64
    } do {
    ^bb0(%y: i64):
      %one = arith.constant 1 : i64
      %y1 = arith.addi %y, %one : i64
      scf.yield %y1 : i64
    }
    memref.store %r, %i[] : memref<i64>
    func.return
  }
}

// CHECK-LABEL: func.func @count
// CHECK:         scf.while () : () -> () {
// CHECK-NEXT:      %{{.*}} = func.call @tracejit_interrupted() : () -> i1
// CHECK-NEXT:      arith.constant true
// CHECK-NEXT:      arith.xori
// CHECK-NEXT:      cf.assert
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[TRIPS:.*]] = scf.while (%[[T:.*]] = %[[ZERO]]) : (index) -> index {
// CHECK-NEXT:        %[[CHUNK:.*]] = arith.constant 1024 : index
// CHECK-NEXT:        %[[FITS:.*]] = arith.cmpi ult, %[[T]], %[[CHUNK]] : index
// CHECK-NEXT:        %[[GO:.*]] = scf.if %[[FITS]] -> (i1) {
// CHECK-NEXT:          memref.load
// CHECK-NEXT:          memref.load
// CHECK-NEXT:          %[[C:.*]] = arith.cmpi slt
// CHECK-NEXT:          scf.yield %[[C]] : i1
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %[[NO:.*]] = arith.constant false
// CHECK-NEXT:          scf.yield %[[NO]] : i1
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.condition(%[[GO]]) %[[T]] : index
// CHECK-NEXT:      } do {
// CHECK-NEXT:      ^{{.*}}(%[[U:.*]]: index):
// CHECK-NOT:         func.call @tracejit_interrupted
// CHECK:             memref.store
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[U]], %[[ONE]] : index
// CHECK-NEXT:        scf.yield %[[NEXT]] : index
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[FULL:.*]] = arith.constant 1024 : index
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi eq, %[[TRIPS]], %[[FULL]] : index
// CHECK-NEXT:      scf.condition(%[[MORE]])
// CHECK-NEXT:    } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK:         scf.while (%{{.*}} = %{{.*}}) : (i64) -> i64 {
// CHECK-NEXT:      func.call @tracejit_interrupted
// CHECK-NOT:       arith.constant 1024
// CHECK:         func.return
