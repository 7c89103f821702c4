// canonicalize: an insert_slice at 0 with step 1 of a source of dest's type is the source,
// but only where the sizes are known: a `?` source may be shorter than a `?` dest (the
// fuzzer found `x[:-3] = v` of an unknown-size x overwriting all of x).
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @static(%v: tensor<3xf32>, %d: tensor<3xf32>)
  // CHECK-NEXT:    func.return %v : tensor<3xf32>
  func.func @static(%v: tensor<3xf32>, %d: tensor<3xf32>) -> tensor<3xf32> {
    %r = tj.insert_slice %v into %d, start = [0], step = [1] : tensor<3xf32> into tensor<3xf32>
    func.return %r : tensor<3xf32>
  }
  // CHECK-LABEL: func.func @dynamic(%v: tensor<?xf32>, %d: tensor<?xf32>)
  // CHECK-NEXT:    %r = tj.insert_slice %v into %d, start = [0], step = [1] : tensor<?xf32> into tensor<?xf32>
  // CHECK-NEXT:    func.return %r : tensor<?xf32>
  func.func @dynamic(%v: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?xf32> {
    %r = tj.insert_slice %v into %d, start = [0], step = [1] : tensor<?xf32> into tensor<?xf32>
    func.return %r : tensor<?xf32>
  }
}
