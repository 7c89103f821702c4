// --emit dot draws the tj-level dataflow for Graphviz: ops are boxes labelled with name,
// properties (`kind=sum, axes=[1]`; none here) and result type, SSA uses are edges,
// function arguments are ellipses, and every op with regions is a `subgraph cluster_N`
// (a func here; a fused kernel or a loop likewise).
// RUN: tracejit-opt %s --emit dot | filecheck %s
// RUN: tracejit-opt %s --emit loops | tracejit-opt - --emit dot | filecheck %s --check-prefix=LOOPS

builtin.module {
  func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %a = tj.add %x, %y : tensor<4xf32>
    %e = tj.exp %a : tensor<4xf32>
    func.return %e : tensor<4xf32>
  }
}

// CHECK:      digraph tj {
// CHECK:        subgraph cluster_0 {
// CHECK-NEXT:     label="func.func @f";
// CHECK-NEXT:     [[X:a[0-9]+]] [label="%x\ntensor<4xf32>", shape=ellipse];
// CHECK-NEXT:     [[Y:a[0-9]+]] [label="%y\ntensor<4xf32>", shape=ellipse];
// CHECK-NEXT:     [[ADD:n[0-9]+]] [label="tj.add\ntensor<4xf32>"];
// CHECK-NEXT:     [[EXP:n[0-9]+]] [label="tj.exp\ntensor<4xf32>"];
// CHECK-NEXT:     [[RET:n[0-9]+]] [label="func.return"];
// CHECK-NEXT:   }
// CHECK-DAG:    [[X]] -> [[ADD]];
// CHECK-DAG:    [[Y]] -> [[ADD]];
// CHECK-DAG:    [[ADD]] -> [[EXP]];
// CHECK-DAG:    [[EXP]] -> [[RET]];
// CHECK:      }

// The loop is a cluster inside the function's cluster; its induction variable an input.
// (Its attribute, tj.parallel: its iterations are independent, see `parallelize`.)
// LOOPS:      subgraph cluster_0 {
// LOOPS-NEXT:   label="func.func @f";
// LOOPS:        subgraph cluster_1 {
// LOOPS-NEXT:     label="scf.for\ntj.parallel=unit";
// LOOPS-NEXT:     [[FOR:n[0-9]+]] [label="scf.for\ntj.parallel=unit"];
// LOOPS-NEXT:     [[IV:a[0-9]+]] [label="%{{.*}}\nindex", shape=ellipse];
// LOOPS:          [[LOAD:n[0-9]+]] [label="memref.load\nf32"];
// LOOPS:        }
// LOOPS:      [[IV]] -> [[LOAD]];
