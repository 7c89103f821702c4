// bufferize of a loop whose body computes a 256-element temporary: the heap buffer is
// allocated once, at the function's entry, and freed before it returns (once), not allocated and
// freed in every iteration (a malloc/free pair of a large buffer per iteration costs page
// faults each time the allocator returns the memory to the system). The loop body still
// owns the buffer: the add reuses it for its result.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<256xf32>, %n: tensor<i64>) -> tensor<256xf32> {
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %i_end, %s = tj.while %zero, %x : (tensor<i64>, tensor<256xf32>) -> (tensor<i64>, tensor<256xf32>) {
    ^bb0(%i: tensor<i64>, %s0: tensor<256xf32>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %s1: tensor<256xf32>):
      %t = tj.tanh %s1 : tensor<256xf32>
      %s2 = tj.add %t, %x : tensor<256xf32>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %s2 : tensor<i64>, tensor<256xf32>
    }
    %r = tj.mul %s, %s : tensor<256xf32>
    func.return %r : tensor<256xf32>
  }
}

// CHECK:      func.func @f(%{{.*}}: memref<256xf32>, %{{.*}}: memref<i64>, %{{.*}}: memref<256xf32>)
// CHECK-NEXT:   %[[TEMP:.*]] = memref.alloc() : memref<256xf32>
// CHECK:        %[[STATE:.*]] = memref.alloc() : memref<256xf32>
// CHECK:        scf.while
// CHECK:        } do {
// CHECK-NOT:      memref.alloc()
// CHECK:          linalg.generic {{.*}} ins(%{{.*}} : memref<256xf32>) outs(%[[TEMP]] : memref<256xf32>)
// CHECK-NEXT:     ^{{.*}}:
// CHECK-NEXT:       math.tanh
// CHECK:          linalg.generic {{.*}} ins(%[[TEMP]], %{{.*}} : memref<256xf32>, memref<256xf32>) outs(%[[TEMP]] : memref<256xf32>)
// CHECK-NOT:      memref.dealloc
// CHECK:          scf.yield
// CHECK:        memref.dealloc %[[STATE]] : memref<256xf32>
// CHECK-NEXT:   memref.dealloc %[[TEMP]] : memref<256xf32>
// CHECK-NEXT:   func.return
