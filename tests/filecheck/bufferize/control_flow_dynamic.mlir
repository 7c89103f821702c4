// bufferize of an scf.if whose result has a size known only at run time: there is no
// size to allocate it with before the `if`, so each branch yields a heap buffer of its
// own value's size: its temporary when nothing else reads it (the else branch), else a
// copy (the then branch yields the input, which the caller owns). The enclosing block
// frees the result.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%p: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
    %r = tj.if %p : tensor<i1> -> tensor<?xf32> {
      tj.yield %x : tensor<?xf32>
    } else {
      %neg = tj.neg %x : tensor<?xf32>
      tj.yield %neg : tensor<?xf32>
    }
    %y = tj.exp %r : tensor<?xf32>
    func.return %y : tensor<?xf32>
  }
}

// CHECK:      func.func @f(%[[P:.*]]: memref<i1>, %[[X:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>) {
// CHECK:        %[[R:.*]] = scf.if %{{.*}} -> (memref<?xf32>) {
// CHECK:          %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK-NEXT:     %[[COPY:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK-NEXT:     linalg.generic {{.*}} ins(%[[X]] : memref<?xf32>) outs(%[[COPY]] : memref<?xf32>)
// CHECK:          scf.yield %[[COPY]] : memref<?xf32>
// CHECK-NEXT:   } else {
// CHECK:          %[[NEG:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:          arith.negf
// CHECK-NOT:      memref.alloc
// CHECK-NOT:      memref.dealloc
// CHECK:          scf.yield %[[NEG]] : memref<?xf32>
// CHECK:        linalg.generic {{.*}} ins(%[[R]] : memref<?xf32>) outs(%[[OUT]] : memref<?xf32>)
// CHECK:        memref.dealloc %[[R]] : memref<?xf32>
// CHECK-NEXT:   func.return
