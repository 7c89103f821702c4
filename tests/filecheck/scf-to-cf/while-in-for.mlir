// RUN: tracejit-opt %s -p scf-to-cf | filecheck %s

// A while nested in a for, with an scf.if in the while body: xDSL's patterns lower the for
// and the if, ours the while; the blocks come out in def-before-use order.
func.func @nested(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %r:2 = scf.while (%j = %c0, %a = %acc) : (index, i64) -> (index, i64) {
      %lt = arith.cmpi slt, %j, %i : index
      scf.condition(%lt) %j, %a : index, i64
    } do {
    ^bb0(%j2: index, %a2: i64):
      %ji = arith.index_cast %j2 : index to i64
      %odd = arith.trunci %ji : i64 to i1
      %a3 = scf.if %odd -> (i64) {
        %sum = arith.addi %a2, %ji : i64
        scf.yield %sum : i64
      } else {
        scf.yield %a2 : i64
      }
      %j3 = arith.addi %j2, %c1 : index
      scf.yield %j3, %a3 : index, i64
    }
    scf.yield %r#1 : i64
  }
  func.return %total : i64
}

// CHECK-LABEL: func.func @nested(%n: index) -> i64 {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %z = arith.constant 0 : i64
// CHECK-NEXT:    cf.br ^[[FOR_HEAD:bb[0-9]+]](%c0, %z : index, i64)
// CHECK-NEXT:  ^[[FOR_HEAD]](%i: index, %acc: i64):
// CHECK-NEXT:    [[MORE:%.*]] = arith.cmpi slt, %i, %n : index
// CHECK-NEXT:    cf.cond_br [[MORE]], ^[[FOR_BODY:bb[0-9]+]], ^[[FOR_EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[FOR_BODY]]:
// CHECK-NEXT:    cf.br ^[[BEFORE:bb[0-9]+]](%c0, %acc : index, i64)
// CHECK-NEXT:  ^[[BEFORE]](%j: index, %a: i64):
// CHECK-NEXT:    %lt = arith.cmpi slt, %j, %i : index
// CHECK-NEXT:    cf.cond_br %lt, ^[[AFTER:bb[0-9]+]](%j, %a : index, i64), ^[[EXIT:bb[0-9]+]](%j, %a : index, i64)
// CHECK-NEXT:  ^[[AFTER]](%j2: index, %a2: i64):
// CHECK-NEXT:    %ji = arith.index_cast %j2 : index to i64
// CHECK-NEXT:    %odd = arith.trunci %ji : i64 to i1
// CHECK-NEXT:    cf.cond_br %odd, ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %sum = arith.addi %a2, %ji : i64
// CHECK-NEXT:    cf.br ^[[JOIN:bb[0-9]+]](%sum : i64)
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:    cf.br ^[[JOIN]](%a2 : i64)
// CHECK-NEXT:  ^[[JOIN]](%a3: i64):
// CHECK-NEXT:    cf.br ^[[REST:bb[0-9]+]]
// CHECK-NEXT:  ^[[REST]]:
// CHECK-NEXT:    %j3 = arith.addi %j2, %c1 : index
// CHECK-NEXT:    cf.br ^[[BEFORE]](%j3, %a3 : index, i64)
// CHECK-NEXT:  ^[[EXIT]]({{%.*}}: index, [[INNER:%.*]]: i64):
// CHECK-NEXT:    [[NEXT:%.*]] = arith.addi %i, %c1 : index
// CHECK-NEXT:    cf.br ^[[FOR_HEAD]]([[NEXT]], [[INNER]] : index, i64)
// CHECK-NEXT:  ^[[FOR_EXIT]]:
// CHECK-NEXT:    func.return %acc : i64
// CHECK-NEXT:  }
// CHECK-NOT:   scf.
