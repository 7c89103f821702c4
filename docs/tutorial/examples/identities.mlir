// Chapter 03: algebraic identities. x ** 2 and x * 1 are rewritten for every dtype,
// i * 0 only for integers: for floats x * 0.0 is NaN at Inf and -0.0 for negative x.
builtin.module {
  func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
    %two = tj.constant dense<2.0> : tensor<4xf32>
    %one = tj.constant dense<1.0> : tensor<4xf32>
    %zero = tj.constant dense<0.0> : tensor<4xf32>
    %izero = tj.constant dense<0> : tensor<4xi32>
    %sq = tj.pow %x, %two : tensor<4xf32>
    %same = tj.mul %sq, %one : tensor<4xf32>
    %iz = tj.mul %i, %izero : tensor<4xi32>
    %fz = tj.mul %x, %zero : tensor<4xf32>
    func.return %same, %iz, %fz : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
  }
}
