// bufferize of a loop carrying a growing array (a dynamic row count): scf.while carries
// the buffer in SSA form; the body's tj.grow frees the old buffer when it reallocates
// (the loop owns it and nothing reads it again) and tj.set_row writes in place, so the
// body yields the (possibly new) buffer and copies nothing; the enclosing function frees
// the final buffer after the loop.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%n: tensor<i64>, %v: tensor<3xf32>) -> tensor<3xf32> {
    %empty = tj.constant dense<0.0> : tensor<0x3xf32>
    %zero = tj.constant dense<0> : tensor<i64>
    %a0 = tj.grow %empty, %zero : tensor<0x3xf32>, tensor<i64> -> tensor<?x3xf32>
    %i, %a = tj.while %zero, %a0 : (tensor<i64>, tensor<?x3xf32>) -> (tensor<i64>, tensor<?x3xf32>) {
    ^bb0(%i1: tensor<i64>, %a1: tensor<?x3xf32>):
      %c = tj.compare "lt" %i1, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i2: tensor<i64>, %a2: tensor<?x3xf32>):
      %one = tj.constant dense<1> : tensor<i64>
      %next = tj.add %i2, %one : tensor<i64>
      %g = tj.grow %a2, %next : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
      %w = tj.set_row %g[%i2], %v : tensor<?x3xf32>, tensor<i64>, tensor<3xf32>
      tj.yield %next, %w : tensor<i64>, tensor<?x3xf32>
    }
    %last = tj.get_row %a[%zero] : tensor<?x3xf32>, tensor<i64> -> tensor<3xf32>
    func.return %last : tensor<3xf32>
  }
}

// CHECK:      %[[INIT:.*]] = memref.alloc(%{{.*}}) : memref<?x3xf32>
// CHECK:      %[[LOOP:.*]] = scf.while (%[[B:.*]] = %[[INIT]]) : (memref<?x3xf32>) -> memref<?x3xf32> {
// CHECK:        scf.condition(%{{.*}}) %[[B]] : memref<?x3xf32>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^{{.*}}(%[[ARG:.*]]: memref<?x3xf32>):
// CHECK:        %[[GROWN:.*]] = scf.if %{{.*}} -> (memref<?x3xf32>) {
// CHECK-NEXT:     %[[NEW:.*]] = memref.alloc(%{{.*}}) : memref<?x3xf32>
// CHECK:          memref.dealloc %[[ARG]] : memref<?x3xf32>
// CHECK-NEXT:     scf.yield %[[NEW]] : memref<?x3xf32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield %[[ARG]] : memref<?x3xf32>
// CHECK-NEXT:   }
// CHECK:        memref.store %{{.*}}, %[[GROWN]][%{{.*}}, %{{.*}}] : memref<?x3xf32>
// CHECK-NOT:    memref.alloc
// CHECK:        scf.yield %[[GROWN]] : memref<?x3xf32>
// CHECK:      memref.load %[[LOOP]][
// CHECK:      memref.dealloc %[[LOOP]] : memref<?x3xf32>
// CHECK-NEXT: func.return
