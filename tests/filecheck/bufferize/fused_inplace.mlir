// bufferize reuses a dead temporary in place: an element-wise op (or a tj.fused kernel
// reading it with the identity map) whose operand is a heap temporary of its result's type
// with no later use writes its result into that buffer. A caller's input is never written,
// and a temporary used later is not reused.
// RUN: tracejit-opt %s -p bufferize | filecheck %s

builtin.module {
  func.func @chain(%x: tensor<128xf32>, %y: tensor<128xf32>) -> (tensor<128xf32>, tensor<128xi1>) {
    %a = tj.exp %x : tensor<128xf32>
    %b = tj.tanh %a : tensor<128xf32>
    %c = tj.fused %b, %y : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32> {
    ^bb0(%p: tensor<128xf32>, %q: tensor<128xf32>):
      %s = tj.sub %p, %q : tensor<128xf32>
      tj.yield %s : tensor<128xf32>
    }
    %d = tj.neg %c : tensor<128xf32>
    %e = tj.add %d, %c : tensor<128xf32>
    %f = tj.compare "lt" %e, %x : tensor<128xf32> -> tensor<128xi1>
    func.return %e, %f : tensor<128xf32>, tensor<128xi1>
  }
}

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: memref<128xf32>, %[[Y:.*]]: memref<128xf32>, %[[E:.*]]: memref<128xf32>, %[[F:.*]]: memref<128xi1>) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<128xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]] : memref<128xf32>) outs(%[[T]] : memref<128xf32>)
// CHECK:           math.exp
// The tanh and the kernel write over the dead temporary:
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<128xf32>) outs(%[[T]] : memref<128xf32>)
// CHECK:           math.tanh
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %[[Y]] : memref<128xf32>, memref<128xf32>) outs(%[[T]] : memref<128xf32>)
// CHECK:           arith.subf
// %c is used again after the neg: the neg gets a buffer of its own.
// CHECK:         %[[D:.*]] = memref.alloc() : memref<128xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[T]] : memref<128xf32>) outs(%[[D]] : memref<128xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[D]], %[[T]] : memref<128xf32>, memref<128xf32>) outs(%[[E]] : memref<128xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[E]], %[[X]] : memref<128xf32>, memref<128xf32>) outs(%[[F]] : memref<128xi1>)
// CHECK-NOT:     memref.alloc
// CHECK:         memref.dealloc %[[T]]
// CHECK-NEXT:    memref.dealloc %[[D]]
// CHECK-NEXT:    func.return
