// bufferize of a loop whose body copies slices of run-time count (`v[:i] @ A[:i, :]`: a
// matmul reads its operands from buffers) and computes a kernel result of run-time size
// (`y[:i] * 2`, then written back with tj.insert_slice). Each count is at most its static
// dim, so each temporary is a memref.view of the run-time sizes into a scratch buffer of
// the bound, allocated once: 100 f64 (800 bytes) and 100x8 f64 (6400 bytes) on the heap at
// the function's entry, freed when it returns; 12 f64 (96 bytes) on the stack. No
// malloc and no free in the loop body.
// RUN: tracejit-opt %s -p lower-control-flow,bufferize | filecheck %s

builtin.module {
  func.func @f(%v: tensor<100xf64>, %a: tensor<100x8xf64>, %y: tensor<12xf64>, %n: tensor<i64>) -> (tensor<8xf64>, tensor<12xf64>) {
    %zero = tj.constant dense<0> : tensor<i64>
    %one = tj.constant dense<1> : tensor<i64>
    %acc0 = tj.constant dense<0.0> : tensor<8xf64>
    %i_end, %acc, %ys = tj.while %zero, %acc0, %y : (tensor<i64>, tensor<8xf64>, tensor<12xf64>) -> (tensor<i64>, tensor<8xf64>, tensor<12xf64>) {
    ^bb0(%i: tensor<i64>, %s0: tensor<8xf64>, %y0: tensor<12xf64>):
      %c = tj.compare "lt" %i, %n : tensor<i64> -> tensor<i1>
      tj.condition %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %s1: tensor<8xf64>, %y1: tensor<12xf64>):
      %raw = tensor.extract %i[] : tensor<i64>
      %count = arith.index_cast %raw : i64 to index
      %vs = tj.slice %v, start = [0], step = [1] sizes(%count) : tensor<100xf64> to tensor<?xf64>
      %as = tj.slice %a, start = [0, 0], step = [1, 1] sizes(%count) : tensor<100x8xf64> to tensor<?x8xf64>
      %p = tj.matmul %vs, %as : (tensor<?xf64>, tensor<?x8xf64>) -> tensor<8xf64>
      %s2 = tj.add %s1, %p : tensor<8xf64>
      %head = tj.fused %y1, %count : (tensor<12xf64>, index) -> tensor<?xf64> {
      ^bb0(%yy: tensor<12xf64>, %k: index):
        %h = tj.slice %yy, start = [0], step = [1] sizes(%k) : tensor<12xf64> to tensor<?xf64>
        %d = tj.add %h, %h : tensor<?xf64>
        tj.yield %d : tensor<?xf64>
      }
      %y2 = tj.insert_slice %head into %y1, start = [0], step = [1] : tensor<?xf64> into tensor<12xf64>
      %in = tj.add %i, %one : tensor<i64>
      tj.yield %in, %s2, %y2 : tensor<i64>, tensor<8xf64>, tensor<12xf64>
    }
    func.return %acc, %ys : tensor<8xf64>, tensor<12xf64>
  }
}

// CHECK:      func.func @f(
// CHECK-NEXT:   %[[BIG:.*]] = memref.alloc() : memref<6400xi8>
// CHECK-NEXT:   %[[SMALL:.*]] = memref.alloc() : memref<800xi8>
// CHECK:        scf.while
// CHECK:        } do {
// CHECK-NOT:      memref.alloc(
// CHECK:          %[[COUNT:.*]] = arith.index_cast
// CHECK:          %[[VS:.*]] = memref.view %[[SMALL]][%{{.*}}][%[[COUNT]]] : memref<800xi8> to memref<?xf64>
// CHECK:          %[[AS:.*]] = memref.view %[[BIG]][%{{.*}}][%[[COUNT]]] : memref<6400xi8> to memref<?x8xf64>
// CHECK:          linalg.generic {{.*}} ins(%[[VS]], %[[AS]] : memref<?xf64>, memref<?x8xf64>)
// CHECK:          %[[STACK:.*]] = memref.alloca() alignment = 64 : memref<96xi8>
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[HEAD:.*]] = memref.view %[[STACK]][%[[ZERO]]][%[[COUNT]]] : memref<96xi8> to memref<?xf64>
// CHECK-NEXT:     linalg.generic {{.*}} outs(%[[HEAD]] : memref<?xf64>)
// CHECK-NOT:      memref.alloc(
// CHECK-NOT:      memref.dealloc
// CHECK:          scf.yield
// CHECK:        memref.dealloc %[[SMALL]] : memref<800xi8>
// CHECK-NEXT:   memref.dealloc %[[BIG]] : memref<6400xi8>
// CHECK-NEXT:   func.return
