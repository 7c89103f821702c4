// canonicalize: x + 0 -> x and x - 0 -> x for integers. For floats only the rewrites that
// are exact for every x: x + (-0.0) -> x and x - (+0.0) -> x. x + (+0.0) is NOT x when
// x = -0.0 (the sum is +0.0), and x - (-0.0) neither: both stay.
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  // CHECK-LABEL: func.func @int_add_zero(%x: tensor<3xi32>)
  // CHECK-NEXT:    func.return %x, %x : tensor<3xi32>, tensor<3xi32>
  func.func @int_add_zero(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
    %z = tj.constant dense<0> : tensor<i32>
    %zb = tj.broadcast_in_dim %z, dims = [] : tensor<i32> to tensor<3xi32>
    %a = tj.add %x, %zb : tensor<3xi32>
    %b = tj.add %zb, %x : tensor<3xi32>
    func.return %a, %b : tensor<3xi32>, tensor<3xi32>
  }

  // CHECK-LABEL: func.func @int_sub_zero(%x: tensor<3xui8>)
  // CHECK-NEXT:    func.return %x : tensor<3xui8>
  func.func @int_sub_zero(%x: tensor<3xui8>) -> tensor<3xui8> {
    %z = tj.constant dense<0> : tensor<3xui8>
    %a = tj.sub %x, %z : tensor<3xui8>
    func.return %a : tensor<3xui8>
  }

  // CHECK-LABEL: func.func @float_exact(%x: tensor<3xf32>)
  // CHECK-NEXT:    func.return %x, %x, %x : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  func.func @float_exact(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %nz = tj.constant dense<-0.0> : tensor<3xf32>
    %pz = tj.constant dense<0.0> : tensor<3xf32>
    %a = tj.add %x, %nz : tensor<3xf32>
    %b = tj.add %nz, %x : tensor<3xf32>
    %c = tj.sub %x, %pz : tensor<3xf32>
    func.return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }

  // CHECK-LABEL: func.func @float_not_exact(%x: tensor<3xf32>)
  // CHECK:         %[[A:.*]] = tj.add %x, %{{.*}} : tensor<3xf32>
  // CHECK:         %[[B:.*]] = tj.sub %x, %{{.*}} : tensor<3xf32>
  // CHECK:         %[[C:.*]] = tj.add %x, %{{.*}} : tensor<3xf32>
  // CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
  func.func @float_not_exact(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %pz = tj.constant dense<0.0> : tensor<3xf32>
    %nz = tj.constant dense<-0.0> : tensor<3xf32>
    %mixed = tj.constant dense<[-0.0, -0.0, 0.0]> : tensor<3xf32>
    %a = tj.add %x, %pz : tensor<3xf32>
    %b = tj.sub %x, %nz : tensor<3xf32>
    %c = tj.add %x, %mixed : tensor<3xf32>
    func.return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }

  // CHECK-LABEL: func.func @int_add_nonzero(%x: tensor<3xi32>)
  // CHECK:         tj.add %x, %{{.*}} : tensor<3xi32>
  func.func @int_add_nonzero(%x: tensor<3xi32>) -> tensor<3xi32> {
    %c = tj.constant dense<[0, 0, 1]> : tensor<3xi32>
    %a = tj.add %x, %c : tensor<3xi32>
    func.return %a : tensor<3xi32>
  }
}
