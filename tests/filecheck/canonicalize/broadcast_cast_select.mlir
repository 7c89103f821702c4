// canonicalize: broadcast_in_dim to the operand's own type -> x (the broadcast folder, also
// with a dynamic dim taken from the operand); cast to the same type -> x; select with a
// splat-constant condition -> the chosen operand. A real broadcast, a real cast and a
// select on a mixed or unknown condition stay.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @identities(%x: tensor<?x3xf32>, %y: tensor<3xi8>, %z: tensor<3xi8>)
  // CHECK-NEXT:    func.return %x, %y, %y, %z : tensor<?x3xf32>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>
  func.func @identities(%x: tensor<?x3xf32>, %y: tensor<3xi8>, %z: tensor<3xi8>) -> (tensor<?x3xf32>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) {
    %b = tj.broadcast_in_dim %x, dims = [0, 1] : tensor<?x3xf32> to tensor<?x3xf32>
    %c = tj.cast %y : tensor<3xi8> to tensor<3xi8>
    %t = tj.constant dense<true> : tensor<i1>
    %tb = tj.broadcast_in_dim %t, dims = [] : tensor<i1> to tensor<3xi1>
    %s1 = tj.select %tb, %y, %z : tensor<3xi1>, tensor<3xi8>
    %f = tj.constant dense<false> : tensor<3xi1>
    %s2 = tj.select %f, %y, %z : tensor<3xi1>, tensor<3xi8>
    func.return %b, %c, %s1, %s2 : tensor<?x3xf32>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>
  }

  // CHECK-LABEL: func.func @kept(%x: tensor<3xf32>, %y: tensor<3xi8>, %z: tensor<3xi8>, %p: tensor<3xi1>)
  // CHECK-NEXT:    %[[B:.*]] = tj.broadcast_in_dim %x, dims = [1] : tensor<3xf32> to tensor<2x3xf32>
  // CHECK-NEXT:    %[[C:.*]] = tj.cast %y : tensor<3xi8> to tensor<3xi16>
  // CHECK:         %[[S1:.*]] = tj.select %{{.*}}, %y, %z
  // CHECK-NEXT:    %[[S2:.*]] = tj.select %p, %y, %z
  // CHECK-NEXT:    func.return %[[B]], %[[C]], %[[S1]], %[[S2]]
  func.func @kept(%x: tensor<3xf32>, %y: tensor<3xi8>, %z: tensor<3xi8>, %p: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<3xi16>, tensor<3xi8>, tensor<3xi8>) {
    %b = tj.broadcast_in_dim %x, dims = [1] : tensor<3xf32> to tensor<2x3xf32>
    %c = tj.cast %y : tensor<3xi8> to tensor<3xi16>
    %m = tj.constant dense<[true, false, true]> : tensor<3xi1>
    %s1 = tj.select %m, %y, %z : tensor<3xi1>, tensor<3xi8>
    %s2 = tj.select %p, %y, %z : tensor<3xi1>, tensor<3xi8>
    func.return %b, %c, %s1, %s2 : tensor<2x3xf32>, tensor<3xi16>, tensor<3xi8>, tensor<3xi8>
  }
}
